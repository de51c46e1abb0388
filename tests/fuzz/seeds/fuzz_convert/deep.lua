local t = {}
for i = 1, 70 do t = { t } end
return t
