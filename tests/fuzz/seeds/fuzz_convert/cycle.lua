local t = {}
t.a = { t }
return t
