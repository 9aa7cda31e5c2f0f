"""``/docs``: the HTTP API's reference as one page built from its OpenAPI schema, with no
asset from elsewhere (FastAPI's Swagger UI loads its scripts from a CDN: blank offline,
and a third party in the page). The schema itself is at ``/openapi.json``."""

from __future__ import annotations

from html import escape
from typing import Any

STYLE = (
    "body{font:15px/1.45 system-ui,sans-serif;max-width:56rem;margin:2rem auto;padding:0 1rem}"
    "code,pre{font:13px ui-monospace,monospace;background:#f4f4f4;padding:.1rem .3rem}"
    "h2{margin-top:2rem;border-top:1px solid #ddd;padding-top:1rem}"
    "table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.2rem .5rem;"
    "text-align:left;vertical-align:top}"
)


def _fields(schema: dict[str, Any], components: dict[str, Any]) -> list[tuple[str, str, str]]:
    ref = schema.get("$ref", "")
    if ref:
        schema = components.get(ref.rsplit("/", 1)[-1], {})
    required = set(schema.get("required", []))
    rows = []
    for name, prop in schema.get("properties", {}).items():
        options = prop.get("anyOf", [prop])
        kinds = "|".join(str(o.get("type", o.get("format", "object"))) for o in options)
        bounds = [
            f"{k}={o[k]}"
            for o in options
            for k in ("minimum", "maximum", "minLength", "maxLength", "pattern")
            if k in o
        ]
        note = prop.get("description", "")
        if "default" in prop:
            note += f" (default {prop['default']!r})"
        if name in required:
            note += " (required)"
        rows.append((name, " ".join([kinds, *bounds]), note.strip()))
    return rows


def render(spec: dict[str, Any]) -> str:
    """The page for OpenAPI document ``spec``: each route, its parameters and body."""
    components = spec.get("components", {}).get("schemas", {})
    info = spec.get("info", {})
    out = [
        "<!doctype html><meta charset=utf-8>",
        f"<title>{escape(info.get('title', 'API'))} API</title><style>{STYLE}</style>",
        f"<h1>{escape(info.get('title', 'API'))} HTTP API</h1>",
        f"<p>{escape(info.get('description', ''))}</p>",
        "<p>The machine-readable schema: <a href=openapi.json><code>/openapi.json</code></a>"
        " (load it into any OpenAPI viewer).</p>",
    ]
    for path, methods in spec.get("paths", {}).items():
        for method, op in methods.items():
            out.append(f"<h2><code>{escape(method.upper())} {escape(path)}</code></h2>")
            out.append(f"<p>{escape(op.get('summary', ''))}</p>")
            rows = [
                (p["name"], f"{p.get('in', '')} {p.get('schema', {}).get('type', '')}", "")
                for p in op.get("parameters", [])
            ]
            for content in op.get("requestBody", {}).get("content", {}).values():
                rows += _fields(content.get("schema", {}), components)
            if rows:
                out.append("<table><tr><th>field<th>type<th>notes")
                out += [
                    f"<tr><td><code>{escape(a)}</code><td>{escape(b)}<td>{escape(c)}"
                    for a, b, c in rows
                ]
                out.append("</table>")
            codes = ", ".join(sorted(op.get("responses", {})))
            out.append(f"<p>Answers: {escape(codes)}; errors are JSON <code>{{detail}}</code>.</p>")
    return "\n".join(out)
