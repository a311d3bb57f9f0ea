"""Text that is markup somewhere, for the console: the report test's hostile names, plus HTML that
runs script when it is parsed as markup (an ``<img onerror>``, a ``<script>``, a ``javascript:`` link)
and that sets ``window.__pwned`` if it ever runs. A catalog whose clinic says all of it, in its policy,
descriptions, seed rows and task."""

from __future__ import annotations

import json
import shutil
from html.parser import HTMLParser
from pathlib import Path

from envs.paths import BUILTIN_CATALOG

SCRIPT = "<script>window.__pwned=1</script>"
IMG = '<img src=x onerror="window.__pwned=1">'
LINK = "[click](javascript:window.__pwned=1)"
HOSTILE = [
    SCRIPT,
    IMG,
    LINK,
    "output not stated: <b>25</b>",
    "$$",
    "a|b",
    "**bold** _em_",
    "`tick` & ~~gone~~",
    '"><svg onload=window.__pwned=1>',
]
ALL = " ".join(HOSTILE)


def hostile_catalog(root: Path) -> Path:
    """A catalog holding the reference clinic with hostile text in every kind of field it shows."""
    shutil.copytree(BUILTIN_CATALOG / "clinic", root / "clinic")
    env = root / "clinic"
    (env / "policy.md").write_text(f"# Policy {SCRIPT}\n\n{ALL}\n\n" + (env / "policy.md").read_text())
    spec = json.loads((env / "spec.json").read_text())
    spec["description"] = ALL
    spec["tools"][0]["description"] = ALL
    spec["tables"][0]["description"] = ALL
    (env / "spec.json").write_text(json.dumps(spec))
    tasks = json.loads((env / "tasks.json").read_text())
    tasks[0]["instruction"] = "Book me in. " + ALL
    tasks[0]["user"]["persona"] = ALL
    tasks[0]["user"]["known_facts"].append(ALL)
    (env / "tasks.json").write_text(json.dumps(tasks))
    return root


class Markup(HTMLParser):
    """Every element of a page with its attributes, and the text of its scripts."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))

    def active(self) -> list[str]:
        """What would run: scripts not from the console's own files, event handler attributes, script
        URLs, and elements that hostile text would bring (img, svg, iframe, object)."""
        found = []
        for tag, attrs in self.elements:
            if tag == "script" and not (attrs.get("src") or "").startswith("/console/static/"):
                found.append(f"<script {attrs}>")
            if tag in ("img", "svg", "iframe", "object", "embed", "b"):
                found.append(f"<{tag}>")
            for name, value in attrs.items():
                if name.startswith("on"):
                    found.append(f"{tag} {name}")
                if value and value.strip().lower().startswith("javascript:"):
                    found.append(f"{tag} {name}={value}")
        return found
