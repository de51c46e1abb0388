-- templates/procurement.lua: the report attached to a purchase decision. It names the
-- sections and their order; each section draws itself from results.json alone.
return {
  schema = "sparkreport/results",   -- the documents it draws
  name = "procurement",
  sections = { "title", "summary", "bandwidth", "precision", "train", "model", "compress", "collective", "appendix" },
}
