return { setmetatable({}, { __jsontype = "object" }), {}, "\0\xff" }
