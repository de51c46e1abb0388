-- templates/procurement.lua: the two documents a purchase decision files, drawn from one
-- results.json. It names each document's sections and their order; each section draws itself
-- from results.json alone.
return {
  schema = "sparkreport/results",   -- the documents it draws
  name = "procurement",
  -- report.pdf, the decision report: the answer for the team first (pages 1-3), then the projected
  -- training time; the projection method, every workload on the compared systems, the costs and
  -- the catalog's sources as appendices. At most 25 pages for the default run.
  sections = { "team", "decision", "projection", "tenants", "appendix" },
  -- annex.pdf, the technical annex: the machine that ran the report (bandwidth, compute, training,
  -- compression), the model's calibration and validation, every catalog system, scale-out, the
  -- environment and the command that reruns the scenario
  annex = { "annex_title", "summary", "bandwidth", "precision", "train", "model", "compress", "collective",
            "tenants_measured", "annex_appendix" },
}
