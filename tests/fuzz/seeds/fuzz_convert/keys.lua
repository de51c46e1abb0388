return { [1] = 1, [3] = 3, [1.5] = "h", ["1"] = "s", [-1] = 0, n = 0/0, i = 1/0, z = -0.0, big = 2^53, m = math.mininteger }
