"""Catalogs: the pipeline that runs every stage per domain and writes the verified result.

Takes domains and a :class:`~.pipeline.SynthesisConfig`; gives a catalog directory
(:func:`.pipeline.run_pipeline`) with a synthesis report and a quality report. The default catalog
(:mod:`.default_catalog`) is every built-in domain at seed 0, made on first use and cached;
:mod:`.cache_prune` removes the ones older code made.
"""
