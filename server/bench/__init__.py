"""Benchmarks of the serving layer, each against a baseline measured in the same run: ``envfarm bench
serve`` (:mod:`.serve`, beside a bare MCP server: :mod:`.bare`), ``isolation`` (:mod:`.isolation`)
and ``load`` (:mod:`.load`)."""
