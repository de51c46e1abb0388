return { f = function() end }
