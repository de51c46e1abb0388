-- templates/procurement.lua: the report attached to a purchase decision. It names the
-- sections and their order; each section draws itself from results.json alone.
return {
  schema = "sparkreport/results",   -- the documents it draws
  name = "procurement",
  -- the answer first (pages 1-2), then one finding per section; detail goes to the appendices
  sections = { "team", "decision", "summary", "bandwidth", "precision", "train", "model", "compress", "collective", "tenants", "appendix" },
  -- the sections about the machine that ran the report: when it is not a system of the catalog
  -- they are one appendix part, after the decision's and the projection's
  machine = { "summary", "bandwidth", "precision", "train", "compress" },
}
