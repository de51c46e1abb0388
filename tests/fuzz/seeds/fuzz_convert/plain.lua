return { a = 1, b = { 1, 2, 3 }, c = "x", d = true }
