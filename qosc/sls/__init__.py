"""Service Level Specifications: bounds derived from the configuration, and SLS documents.

- qosc.sls.bounds: what the configured shares, link rates and policers support
  (minimum rate per hop, per-hop and end-to-end queueing delay bounds), each
  with its formula; the checks in qosc.checks.sls compare declared targets
  against them.
- qosc.sls.document: one SLS per service with the TEQUILA parameters
  (domain.md 5), as plain data.
  Its table rows and sentences are in qosc.sls.rows, its per-interface
  bandwidth charts in qosc.sls.charts.
- qosc.sls.render: that document as Markdown (for pull requests) or as one
  self-contained HTML file with an inline SVG bandwidth chart per interface.
"""
