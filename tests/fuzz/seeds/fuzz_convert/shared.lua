local t = { ("x"):rep(1000) }
for i = 1, 30 do t = { t, t } end
return t
