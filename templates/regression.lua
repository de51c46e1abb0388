-- templates/regression.lua: the report `sparkreport compare` (and a run with a baseline) writes:
-- the verdict and the environment diff first, then the verdicts, the projected rows and figures
-- without raw samples, what was not comparable, and the method. Each section draws from the comparison document alone.
return {
  schema = "sparkreport/comparison",   -- the documents it draws
  name = "regression",
  sections = { "regression_title", "regression_environment", "regression_verdicts",
               "regression_projections",
               "regression_not_comparable", "regression_method" },
}
