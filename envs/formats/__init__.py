"""The file formats: what an environment (``spec``) and a task (``task``) hold, as strict pydantic models.

Takes JSON text or dicts; gives validated models whose errors name the field, plus the checks a spec
needs to load safely (a valid and harmless JSON Schema per tool, spec SQL's named parameters) and the
formats' JSON Schemas for editors and generators. Imports nothing of envs but ``errors``.
"""
