"""Tasks: the tool dependency graph (:mod:`.graph`) expanded from goals into tasks, each verified by
executing its gold calls.

Takes an admitted spec; gives :class:`~envs.formats.task.Task` objects (:func:`.taskgen.generate_tasks`) with
instructions (:mod:`.phrasing`, optionally rewritten by an LLM: :mod:`.rewrite`), user facts
(:mod:`.knowledge`), gold calls (:mod:`.chain`), goals by kind (:mod:`.writes`, :mod:`.rules`,
:mod:`.consent`) and checklists written from the goals (:mod:`.checklist`).
"""
