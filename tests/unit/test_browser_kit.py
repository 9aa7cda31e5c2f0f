"""The Neo4j Browser kit without a server: the style, the saved queries, the URL."""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from cogmem import browser as kit
from cogmem.config import load_settings, write_config_file
from cogmem.models import NodeLabel, RecordType

pytestmark = pytest.mark.unit


def test_every_label_has_its_own_colour_and_a_caption() -> None:
    style = kit.style()
    labels = {label.value for label in NodeLabel} | {rtype.label for rtype in RecordType}
    assert {"Claim", "Todo", "Reminder", "Insight"} <= labels
    colours = {}
    for label in labels - {NodeLabel.MEMORY.value, NodeLabel.META.value}:
        rule = style.get(f"node.{label}")
        assert rule, f"no style for :{label}"
        assert rule["color"].startswith("#") and rule["caption"], label
        colours[label] = rule["color"].upper()
    assert len(set(colours.values())) == len(colours), colours  # one colour per label
    assert style["node.Claim"]["caption"].startswith("{status}")
    assert style["node.Turn"]["caption"] == "{speaker} {source_id}"
    assert style["node.Person"]["caption"] == "{name}"
    for rel in ("SUPERSEDES", "CONFLICTS_WITH", "SUPPORTED_BY", "EVIDENCED_BY"):
        assert f"relationship.{rel}" in style


def test_grass_is_read_the_way_browser_reads_it() -> None:
    text = 'node.Turn {\n  color: #FFF;\n  caption: "{speaker} {source_id}";\n}\nnode {a: b}'
    assert kit.parse_grass(text) == {
        "node.Turn": {"color": "#FFF", "caption": "{speaker} {source_id}"},
        "node": {"a": "b"},
    }
    # a second colon makes Browser skip the declaration: the shipped file has none
    assert kit.parse_grass("node.X { caption: 'a: b'; color: #000; }") == {
        "node.X": {"color": "#000"}
    }
    for line in kit.grass_text().splitlines():
        assert line.count(":") <= 1 and "/*" not in line, line


def test_the_style_survives_post_connect_cmd() -> None:
    # Browser splits browser.post_connect_cmd on ';' outside quotes, then runs ':' + each part
    value = kit.post_connect_command()
    assert value.startswith("style {") and "\n" not in value
    assert ";" not in value
    assert json.loads(value.removeprefix("style ")) == kit.style()
    assert kit.style_command() == ":" + value


def test_saved_queries_have_titles_and_take_the_group_as_a_parameter() -> None:
    queries = {q.name: q for q in kit.saved_queries()}
    assert {
        "person_claims", "claim_history", "turn_records", "fact_support", "group_timeline",
    } <= set(queries)  # fmt: skip
    for query in queries.values():
        assert query.text.startswith("// ") and query.title, query.name
        assert query.params[0] == "group", query.name
    assert queries["person_claims"].params == ("group", "person")
    assert "SUPERSEDES" in queries["person_claims"].text
    assert "EVIDENCED_BY" in queries["turn_records"].text
    assert "SUPPORTED_BY" in queries["fact_support"].text
    with pytest.raises(KeyError, match="known: "):
        kit.saved_query("nope")


def test_write_kit_writes_the_grass_and_a_zip_of_the_queries(tmp_path: Path) -> None:
    grass, archive = kit.write_kit(tmp_path / "kit")
    assert grass.read_text(encoding="utf-8") == kit.grass_text()
    with zipfile.ZipFile(archive) as zf:
        names = sorted(zf.namelist())
        assert names == sorted(f"cogmem/{q.name}.cypher" for q in kit.saved_queries())
        assert (
            zf.read("cogmem/person_claims.cypher").decode() == kit.saved_query("person_claims").text
        )


@pytest.mark.parametrize(
    ("uri", "connect", "http"),
    [
        ("bolt://127.0.0.1:7687", "bolt://neo4j@127.0.0.1:7687", "http://127.0.0.1:7474/browser/"),
        ("neo4j://db.example:7690", "neo4j://neo4j@db.example:7690", "http://db.example:7474/browser/"),
        ("neo4j+s://x.example", "neo4j+s://neo4j@x.example:7687", "https://x.example:7473/browser/"),
        ("localhost:7687", "bolt://neo4j@localhost:7687", "http://localhost:7474/browser/"),
    ],
)  # fmt: skip
def test_connect_url_and_default_browser_location(uri: str, connect: str, http: str) -> None:
    assert kit.connect_url(uri, "neo4j") == connect
    assert kit.default_http_url(uri) == http


def test_browser_url_has_the_parameters_browser_reads_and_never_the_password() -> None:
    url = kit.browser_url(
        "http://127.0.0.1:7474/browser/", "bolt://127.0.0.1:7687", "neo4j", "neo4j"
    )
    assert url == "http://127.0.0.1:7474/browser/?dbms=bolt://neo4j@127.0.0.1:7687&db=neo4j"
    with_editor = kit.browser_url(
        "http://h:1/browser", "bolt://h:2", "neo4j", "neo4j", ':param group => "a b"'
    )
    query = parse_qs(urlsplit(with_editor).query)
    assert query["cmd"] == ["edit"] and query["arg"] == [':param group => "a b"']
    assert "+" not in with_editor  # Browser turns '+' into a space before decoding
    with pytest.raises(ValueError, match="&"):
        kit.browser_url("http://h/browser/", "bolt://h", "neo4j", "neo4j", "a & b")


def test_param_commands_quote_values_as_cypher_strings() -> None:
    assert kit.param_command("group", 'say "hi"\\') == ':param group => "say \\"hi\\"\\\\"'
    assert kit.param_commands({"group": "g", "person": "Priya"}) == (
        ':param group => "g";\n:param person => "Priya"'
    )
    with pytest.raises(ValueError):
        kit.param_command("not a name", "x")


def test_launch_says_where_the_password_is_and_never_what(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NEO4J_PASSWORD", raising=False)
    monkeypatch.delenv("NEO4J_URI", raising=False)  # CI exports the suite's server
    config = tmp_path / "config.toml"
    monkeypatch.setenv("COGMEM_CONFIG", str(config))
    write_config_file({"neo4j_uri": "bolt://127.0.0.1:7999", "neo4j_password": "s3cret-pw"})
    settings = load_settings({"group": "alice"})
    conf = tmp_path / "neo4j.conf"
    conf.write_text(
        "server.bolt.listen_address=127.0.0.1:7999\n"
        f"browser.post_connect_cmd={kit.post_connect_command()}\n",
        encoding="utf-8",
    )
    launch = kit.launch(settings, http_url="http://127.0.0.1:7475/browser/", conf=conf)
    shown = "\n".join(launch.lines())
    assert "s3cret-pw" not in shown + launch.url
    assert launch.password_from == f"neo4j_password in {config}"
    assert launch.url.startswith(
        "http://127.0.0.1:7475/browser/?dbms=bolt://neo4j@127.0.0.1:7999&db=neo4j&cmd=edit&arg="
    )
    assert launch.editor == ':param group => "alice"'
    assert launch.style_on_connect and "applied on connect" in shown
    assert not kit.launch(settings).style_on_connect  # no conf: drop the .grass file
    monkeypatch.setenv("NEO4J_PASSWORD", "other")
    assert "NEO4J_PASSWORD" in kit.password_source(load_settings())


def test_launch_local_uses_the_running_instance_that_serves_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cogmem.server.local import InstanceState, running_state

    monkeypatch.setenv("COGMEM_CONFIG", str(tmp_path / "config.toml"))
    inst = tmp_path / "inst"
    (inst / "conf").mkdir(parents=True)
    (inst / "conf" / "neo4j.conf").write_text(
        "server.bolt.listen_address=127.0.0.1:7999\n"
        f"browser.post_connect_cmd={kit.post_connect_command()}\n",
        encoding="utf-8",
    )
    state = InstanceState(
        pid=os.getpid(), bolt_port=7999, http_port=7475, auth=True, version="5.26.30",
        log_path="x", started_at=0.0,
    )  # fmt: skip
    (inst / "server.json").write_text(state.model_dump_json(), encoding="utf-8")
    running = running_state(inst)
    assert running is not None
    ours = kit.launch_local(load_settings({"neo4j_uri": "bolt://localhost:7999"}), inst, running)
    assert ours.http_url == "http://127.0.0.1:7475/browser/" and ours.style_on_connect
    other = kit.launch_local(load_settings({"neo4j_uri": "bolt://127.0.0.1:7687"}), inst, running)
    assert other.http_url == "http://127.0.0.1:7474/browser/" and not other.style_on_connect
    stopped = kit.launch_local(load_settings({"neo4j_uri": "bolt://localhost:7999"}), inst, None)
    assert stopped.http_url == "http://localhost:7474/browser/" and not stopped.style_on_connect


def test_cli_browser_prints_the_url_and_writes_the_kit_without_the_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from cogmem.cli import app

    monkeypatch.setenv("NEO4J_URI", "bolt://127.0.0.1:7999")
    monkeypatch.setenv("NEO4J_PASSWORD", "s3cret-pw")
    result = CliRunner().invoke(app, ["browser", "--group", "alice", "--kit", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "dbms=bolt://neo4j@127.0.0.1:7999" in result.output
    assert "%22alice%22" in result.output
    assert "s3cret-pw" not in result.output
    assert "NEO4J_PASSWORD" in result.output
    assert (tmp_path / "cogmem.grass").is_file()
