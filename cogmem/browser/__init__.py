"""The Neo4j Browser kit: a style for cogmem's labels, saved queries, and the Browser URL.

- ``cogmem.grass`` (next to this file) gives every label a colour and a caption. Neo4j
  Browser's style sheets select by label and relationship type only (``node.Claim``), never by
  property, so a claim's status cannot pick its colour: a claim's caption starts with its
  status instead (``CURRENT …``). cogmem's local server applies the style on every Browser
  connect (``browser.post_connect_cmd``, see :func:`post_connect_command`); on any other
  server drag ``cogmem.grass`` onto the Browser window or run :func:`style_command`'s line.
- ``cypher/browser/*.cypher`` are the questions users ask (a person's claims and their
  history, a turn's records, what a fact is supported by, a group's timeline), parameterised
  by ``$group`` and the like. The first comment line of a file is its title; Browser's
  Favorites take the same line as the name when the files (or :func:`write_kit`'s zip) are
  dropped on it.
- :func:`launch` builds the Browser URL with the connect URL and user filled in
  (``?dbms=bolt://neo4j@127.0.0.1:7687&db=neo4j``, the parameters Browser 5.24 reads) and
  ``:param group => "…"`` in the editor (``cmd=edit&arg=…``), and says where the password
  is — never the password itself.

Nothing here talks to a server.
"""

from __future__ import annotations

import json
import os
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol
from urllib.parse import quote, urlsplit

from cogmem import statements
from cogmem.config import Settings, config_path, read_config_file

GRASS_FILE = Path(__file__).resolve().with_name("cogmem.grass")
QUERY_FOLDER = "browser"
HTTP_PORT = 7474
HTTPS_PORT = 7473
BOLT_PORT = 7687

# Browser reads these query-string parameters at start-up (checked in the 5.24 bundle):
# ``dbms`` (or ``connectURL``) = the connect URL, whose user part fills the user field;
# ``db`` = the database; ``cmd=edit`` + ``arg`` = text placed in the editor (not run).
# ``cmd=play`` would run a guide but also turns off ``browser.post_connect_cmd``.
_LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


# -- style ---------------------------------------------------------------------------------
def grass_text() -> str:
    """The shipped style sheet, as Browser's ``:style`` and the style panel show it."""
    return GRASS_FILE.read_text(encoding="utf-8")


def parse_grass(text: str) -> dict[str, dict[str, str]]:
    """``selector -> {property: value}``, read the way Browser 5.24 reads a .grass file:
    rules ``selector { name: value; … }``; quotes only protect what they enclose (they are
    dropped); no comments; a declaration with a second colon is skipped."""
    rules: dict[str, dict[str, str]] = {}
    selector: list[str] = []
    body: list[str] = []
    in_rule = in_quote = False
    for ch in text:
        if ch in "\"'":
            in_quote = not in_quote
        elif in_quote:
            body.append(ch)
        elif ch == "{":
            in_rule = True
        elif ch == "}" and in_rule:
            props: dict[str, str] = {}
            for declaration in "".join(body).split(";"):
                parts = declaration.split(":")
                if len(parts) == 2 and parts[0].strip():
                    props[parts[0].strip()] = parts[1].strip()
            rules["".join(selector)] = props
            selector, body, in_rule = [], [], False
        elif in_rule:
            body.append(ch)
        elif not ch.isspace():
            selector.append(ch)
    return rules


def style() -> dict[str, dict[str, str]]:
    """The shipped style as the JSON object Browser keeps (``localStorage['neo4j.grass']``)."""
    return parse_grass(grass_text())


def style_json() -> str:
    """The style as one line of JSON: Browser's ``:style`` accepts JSON as well as grass, and
    JSON has no ``;`` outside strings, so it survives ``browser.post_connect_cmd``'s split."""
    return json.dumps(style(), separators=(",", ":"))


def style_command() -> str:
    """The one Browser command that applies the style (paste it into the editor)."""
    return ":style " + style_json()


def post_connect_command() -> str:
    """The value for ``browser.post_connect_cmd`` in neo4j.conf: Browser runs it (with a
    leading colon) after every successful connect, so the style is always cogmem's."""
    return "style " + style_json()


# -- saved queries -------------------------------------------------------------------------
@dataclass(frozen=True)
class SavedQuery:
    """One ``cypher/browser/*.cypher`` file: its name, title (first comment line),
    parameters (in order of first use) and full text (comments kept)."""

    name: str
    title: str
    params: tuple[str, ...]
    text: str

    @property
    def statement(self) -> str:
        """The statement name that :func:`cogmem.statements.load` accepts."""
        return f"{QUERY_FOLDER}/{self.name}"


def queries_dir() -> Path:
    """Where the Browser queries live: ``cogmem/_statements/cypher/browser`` in a wheel,
    ``cypher/browser`` in a source checkout (the same rule as :mod:`cogmem.statements`)."""
    package = Path(statements.__file__).resolve().parent
    installed = package / "_statements" / "cypher" / QUERY_FOLDER
    return installed if installed.is_dir() else package.parent / "cypher" / QUERY_FOLDER


def _saved_query(path: Path) -> SavedQuery:
    text = path.read_text(encoding="utf-8")
    first = text.lstrip().splitlines()[0] if text.strip() else ""
    title = first.lstrip("/").strip() if first.startswith("//") else path.stem
    body = statements.load(f"{QUERY_FOLDER}/{path.stem}")
    params = tuple(dict.fromkeys(_PARAM.findall(body)))
    return SavedQuery(name=path.stem, title=title, params=params, text=text)


def saved_queries() -> list[SavedQuery]:
    """Every Browser query shipped, sorted by name."""
    return [_saved_query(p) for p in sorted(queries_dir().glob("*.cypher"))]


def saved_query(name: str) -> SavedQuery:
    path = queries_dir() / f"{name}.cypher"
    if not path.is_file():
        known = ", ".join(q.name for q in saved_queries())
        raise KeyError(f"no Browser query {name!r} (known: {known})")
    return _saved_query(path)


def param_command(name: str, value: str) -> str:
    """``:param name => "value"`` — a Browser command; the value is a Cypher string literal
    (JSON's escapes are valid Cypher escapes)."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise ValueError(f"not a parameter name: {name!r}")
    return f":param {name} => {json.dumps(value)}"


def param_commands(params: dict[str, str]) -> str:
    """The Browser commands that set ``params``: one ``:param`` line each, separated by ``;``
    when there are several (Browser then runs them one by one, in multi-statement mode)."""
    return ";\n".join(param_command(name, value) for name, value in params.items())


def write_kit(folder: Path) -> list[Path]:
    """Write ``cogmem.grass`` and ``cogmem-queries.zip`` (the .cypher files in a ``cogmem``
    folder) into ``folder``: drop either file on Browser's window to apply the style or to
    import the queries as Favorites."""
    folder.mkdir(parents=True, exist_ok=True)
    grass = folder / "cogmem.grass"
    grass.write_text(grass_text(), encoding="utf-8")
    archive = folder / "cogmem-queries.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        for query in saved_queries():
            zf.writestr(f"cogmem/{query.name}.cypher", query.text)
    return [grass, archive]


# -- URL and password ----------------------------------------------------------------------
def _split_uri(neo4j_uri: str) -> tuple[str, str, int]:
    """(scheme, host, port) of a Bolt URI; a missing scheme means ``bolt``."""
    uri = neo4j_uri.strip()
    parts = urlsplit(uri if "://" in uri else f"bolt://{uri}")
    if not parts.hostname:
        raise ValueError(f"not a Neo4j URI (no host): {neo4j_uri!r}")
    try:
        port = parts.port or BOLT_PORT
    except ValueError as exc:
        raise ValueError(f"not a Neo4j URI (bad port): {neo4j_uri!r}") from exc
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return parts.scheme.lower(), host, port


def connect_url(neo4j_uri: str, user: str) -> str:
    """``bolt://user@host:port``: the connect URL whose user part Browser fills in."""
    scheme, host, port = _split_uri(neo4j_uri)
    return f"{scheme}://{quote(user, safe='')}@{host}:{port}"


def default_http_url(neo4j_uri: str) -> str:
    """Where Neo4j serves Browser for a Bolt URI when nothing better is known: the same host
    on 7474 (7473 with https for ``+s`` / ``+ssc`` schemes)."""
    scheme, host, _ = _split_uri(neo4j_uri)
    if scheme.endswith(("+s", "+ssc")):
        return f"https://{host}:{HTTPS_PORT}/browser/"
    return f"http://{host}:{HTTP_PORT}/browser/"


def browser_url(
    http_url: str, neo4j_uri: str, user: str, database: str = "neo4j", editor: str | None = None
) -> str:
    """The Browser URL with the connect URL, user and database filled in and, optionally,
    text in the editor. The password is never part of it.

    Browser decodes ``arg`` with the whole URL before it splits on ``&`` and ``#``, so an
    editor text holding either character is refused here rather than cut short there.
    """
    base = http_url if http_url.endswith("/") else http_url + "/"
    keep = ":/@[]"
    url = (
        f"{base}?dbms={quote(connect_url(neo4j_uri, user), safe=keep)}"
        f"&db={quote(database, safe='')}"
    )
    if editor:
        if "&" in editor or "#" in editor:
            raise ValueError("Browser cannot take '&' or '#' in an editor text passed by URL")
        url += f"&cmd=edit&arg={quote(editor, safe='')}"
    return url


def password_source(settings: Settings, config_file: Path | None = None) -> str:
    """Where the password that cogmem uses comes from, in words (never the password)."""
    if os.environ.get("NEO4J_PASSWORD"):
        return "the NEO4J_PASSWORD environment variable"
    path = config_file or config_path()
    try:
        saved = read_config_file(path).get("neo4j_password")
    except ValueError:
        saved = None
    if saved:
        return f"neo4j_password in {path}"
    if settings.neo4j_password:
        return "the password passed to cogmem (not saved anywhere)"
    return (
        f"none is saved (no neo4j_password in {path}, no NEO4J_PASSWORD): "
        "the server may run without auth"
    )


@dataclass(frozen=True)
class BrowserLaunch:
    """What ``cogmem browser`` prints (and opens)."""

    url: str
    http_url: str
    connect_url: str
    user: str
    database: str
    editor: str
    password_from: str
    style_on_connect: bool

    def lines(self) -> list[str]:
        style = (
            "applied on connect (browser.post_connect_cmd of cogmem's local server)"
            if self.style_on_connect
            else f"drop {GRASS_FILE} on the Browser window"
        )
        return [
            f"Neo4j Browser  {self.url}",
            f"  connect URL  {self.connect_url}, database {self.database} (filled in)",
            f"  user         {self.user} (filled in)",
            f"  password     {self.password_from}",
            f"  editor       {self.editor.replace(chr(10), ' ')}  (press Run once)",
            f"  style        {style}",
            f"  queries      {queries_dir()}/*.cypher: drop one on Browser, 'Save to favorites'",
        ]


def _local_style_on_connect(neo4j_uri: str, conf: Path | None) -> bool:
    if conf is None or not conf.is_file():
        return False
    text = conf.read_text(encoding="utf-8")
    _, _, port = _split_uri(neo4j_uri)
    return "browser.post_connect_cmd=" in text and f"bolt.listen_address=127.0.0.1:{port}\n" in text


def launch(
    settings: Settings,
    http_url: str | None = None,
    params: dict[str, str] | None = None,
    conf: Path | None = None,
) -> BrowserLaunch:
    """Everything to open Browser on the store that ``settings`` name, with
    ``:param group => "<settings.group>"`` (and any ``params``) waiting in the editor.

    ``http_url``: where Browser is served (a local instance's ``state.browser_url``); by
    default :func:`default_http_url`. ``conf``: the neo4j.conf of cogmem's local server, to
    tell whether it applies the style on connect.

    The saved queries are not put in the editor with their parameters: Browser runs an
    editor holding several statements as a script and shows only a summary of each, never
    the graph. So: Run the ``:param`` line once, then any saved query.
    """
    editor = param_commands({"group": settings.group, **(params or {})})
    where = http_url or default_http_url(settings.neo4j_uri)
    return BrowserLaunch(
        url=browser_url(
            where, settings.neo4j_uri, settings.neo4j_user, settings.neo4j_database, editor
        ),
        http_url=where,
        connect_url=connect_url(settings.neo4j_uri, settings.neo4j_user),
        user=settings.neo4j_user,
        database=settings.neo4j_database,
        editor=editor,
        password_from=password_source(settings),
        style_on_connect=_local_style_on_connect(settings.neo4j_uri, conf),
    )


class RunningServer(Protocol):
    """What :func:`launch_local` reads of cogmem's running local server (the
    :class:`~cogmem.server.local.InstanceState` that ``local.running_state`` returns; the
    caller passes it in, as :mod:`cogmem.server.local` sits above this kit: it writes the
    kit's style into neo4j.conf)."""

    @property
    def bolt_port(self) -> int: ...

    @property
    def browser_url(self) -> str: ...


def launch_local(
    settings: Settings,
    inst: Path,
    state: RunningServer | None,
    params: dict[str, str] | None = None,
) -> BrowserLaunch:
    """:func:`launch` for cogmem's local server in instance folder ``inst`` when it runs
    (``state``: its running state, None when it does not run) and is the server ``settings``
    name (loopback, same Bolt port): its own Browser port and conf; otherwise plain
    :func:`launch`."""
    _, host, port = _split_uri(settings.neo4j_uri)
    if state is None or port != state.bolt_port or host not in _LOOPBACK:
        return launch(settings, params=params)
    return launch(
        settings, http_url=state.browser_url, params=params, conf=inst / "conf" / "neo4j.conf"
    )


__all__ = [
    "GRASS_FILE",
    "BrowserLaunch",
    "RunningServer",
    "SavedQuery",
    "browser_url",
    "connect_url",
    "default_http_url",
    "grass_text",
    "launch",
    "launch_local",
    "param_command",
    "param_commands",
    "parse_grass",
    "password_source",
    "post_connect_command",
    "queries_dir",
    "saved_queries",
    "saved_query",
    "style",
    "style_command",
    "style_json",
    "write_kit",
]
