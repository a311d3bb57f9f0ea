"""Benchmarks of the synthesis layer: ``envfarm bench synthesis`` (:mod:`.throughput`) and the engine
on tau2's imported domains (:mod:`.tau2`). Results are written as JSON."""
