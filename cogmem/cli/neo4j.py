"""CLI commands: ``cogmem neo4j install | start | stop | status`` (a local Neo4j server)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any

import typer

from cogmem.cli.common import err, friendly, out, print_json, settings_from
from cogmem.cli.options import DirOpt, GroupOpt, InstanceOpt
from cogmem.config import Settings, config_path, write_config_file
from cogmem.server import local as localserver

neo4j_app = typer.Typer(
    help="Install, start, stop and inspect a local Neo4j Community server, 5.26 LTS by "
    "default or a 2026.x release with --version (fetched from Maven Central into "
    "$COGMEM_HOME).",
    no_args_is_help=True,
)

VersionOpt = Annotated[
    str,
    typer.Option(
        "--version",
        help="Neo4j version: 5.26.x (Java 17/21) or a calendar version such as 2026.08.1 "
        "(Java 21+, found under JAVA_HOME, PATH or /usr/lib/jvm).",
    ),
]
JavaHomeOpt = Annotated[
    Path | None,
    typer.Option(
        "--java-home",
        help="The JDK to run Neo4j with (default: found for the version).",
        file_okay=False,
    ),
]


def instance_path(settings: Settings, name: str, directory: Path | None) -> Path:
    """The instance folder: ``--dir`` if given, else ``$COGMEM_HOME/…/NAME``."""
    return directory.resolve() if directory else localserver.instance_dir(settings.home, name)


@neo4j_app.command("install")
@friendly
def neo4j_install(
    ctx: typer.Context,
    version: VersionOpt = localserver.NEO4J_VERSION,
    java_home: JavaHomeOpt = None,
) -> None:
    """Fetch Neo4j Community and Neo4j Browser jars from Maven Central (needs mvn and a
    Java for the version: 17 for 5.26, 21+ for 2026.x)."""
    settings = settings_from(ctx)
    started = time.monotonic()
    if localserver.is_installed(settings.home, version):
        out.print(
            f"Neo4j {version} is already installed in "
            f"{localserver.install_dir(settings.home, version)}"
        )
        return
    with err.status("Resolving Neo4j from Maven Central (first time: a minute or two)…"):
        path = localserver.install(
            settings.home, version, log=lambda m: err.print(m), java_home=java_home
        )
    out.print(f"Neo4j {version} installed in {path} ({time.monotonic() - started:.0f}s)")


@neo4j_app.command("start")
@friendly
def neo4j_start(
    ctx: typer.Context,
    bolt_port: Annotated[int, typer.Option(help="Bolt port on 127.0.0.1.")] = 7687,
    http_port: Annotated[int, typer.Option(help="HTTP port (Neo4j Browser).")] = 7474,
    auth: Annotated[
        bool, typer.Option("--auth/--no-auth", help="--no-auth for throwaway test servers.")
    ] = True,
    instance: InstanceOpt = "default",
    directory: DirOpt = None,
    heap: Annotated[str, typer.Option(help="JVM heap size.")] = "1g",
    pagecache: Annotated[str, typer.Option(help="Page cache size.")] = "512m",
    timeout: Annotated[float, typer.Option(help="Seconds to wait for Bolt.")] = 120.0,
    save: Annotated[
        bool,
        typer.Option("--save/--no-save", help="Record the URI (and password) in the config."),
    ] = True,
    install: Annotated[
        bool, typer.Option("--install/--no-install", help="Install first if needed.")
    ] = True,
    version: VersionOpt = localserver.NEO4J_VERSION,
    java_home: JavaHomeOpt = None,
) -> None:
    """Start the local server and wait until Bolt answers; prints pid, URIs and log path."""
    settings = settings_from(ctx)
    if install and not localserver.is_installed(settings.home, version):
        with err.status(f"Neo4j {version} is not installed yet: resolving it from Maven…"):
            localserver.install(
                settings.home, version, log=lambda m: err.print(m), java_home=java_home
            )
    inst = instance_path(settings, instance, directory)
    started = time.monotonic()
    with err.status(f"Starting Neo4j {version} from {inst}…"):
        state, password = localserver.start(
            inst,
            settings.home,
            bolt_port=bolt_port,
            http_port=http_port,
            auth=auth,
            heap=heap,
            pagecache=pagecache,
            timeout_s=timeout,
            version=version,
            java_home=java_home,
        )
    took = time.monotonic() - started
    if save:
        updates: dict[str, Any] = {"neo4j_uri": state.bolt_uri}
        if password:
            updates.update(neo4j_user="neo4j", neo4j_password=password)
        write_config_file(updates)
    out.print(f"[green]Neo4j is up[/] in {took:.1f}s")
    out.print(f"  version  {state.version}")
    out.print(f"  java     {state.java}")
    out.print(f"  pid      {state.pid}")
    out.print(f"  bolt     {state.bolt_uri}")
    out.print(f"  browser  {state.browser_url}")
    out.print(f"  auth     {'on (user neo4j)' if auth else 'off'}")
    out.print(f"  log      {state.log_path}")
    if password:
        where = config_path() if save else "nowhere (--no-save): note it now"
        out.print(
            f"[bold yellow]Generated password for user neo4j:[/] {password}\n"
            f"  It is shown only this once; it is kept in {where} (mode 0600)."
        )


@neo4j_app.command("stop")
@friendly
def neo4j_stop(
    ctx: typer.Context, instance: InstanceOpt = "default", directory: DirOpt = None
) -> None:
    """Stop the local server cleanly (SIGTERM, then SIGKILL after 60 s)."""
    settings = settings_from(ctx)
    inst = instance_path(settings, instance, directory)
    state = localserver.stop(inst)
    if state is None:
        out.print(f"No Neo4j is running from {inst}")
    else:
        out.print(f"Stopped Neo4j (pid {state.pid}, {state.bolt_uri})")


@neo4j_app.command("status")
@friendly
def neo4j_status(
    ctx: typer.Context,
    instance: InstanceOpt = "default",
    directory: DirOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    version: VersionOpt = localserver.NEO4J_VERSION,
) -> None:
    """Say whether the local server runs (exit code 0) or not (exit code 3)."""
    settings = settings_from(ctx)
    inst = instance_path(settings, instance, directory)
    state = localserver.running_state(inst)
    if state is not None:
        version = state.version
    info: dict[str, Any] = {
        "installed": localserver.is_installed(settings.home, version),
        "install_dir": str(localserver.install_dir(settings.home, version)),
        "instance_dir": str(inst),
        "running": state is not None,
    }
    if state is not None:
        info.update(
            pid=state.pid,
            bolt=state.bolt_uri,
            browser=state.browser_url,
            auth=state.auth,
            log=state.log_path,
            version=state.version,
            java=state.java,
        )
    if as_json:
        print_json(info)
    else:
        for key, value in info.items():
            out.print(f"  {key:<12} {value}")
    if state is None:
        raise typer.Exit(3)


@friendly
def browser(
    ctx: typer.Context,
    open_: Annotated[bool, typer.Option("--open", help="Also open it in a web browser.")] = False,
    kit: Annotated[
        Path | None,
        typer.Option("--kit", help="Write the .grass style and the saved queries to this folder."),
    ] = None,
    group: GroupOpt = None,
    instance: InstanceOpt = "default",
    directory: DirOpt = None,
) -> None:
    """Print the Neo4j Browser URL with the connect URL, user and group filled in, say where
    the password is, and how the cogmem style and saved queries are applied."""
    from cogmem import browser as browser_kit

    settings = settings_from(ctx, group=group)
    inst = instance_path(settings, instance, directory)
    launch = browser_kit.launch_local(settings, inst, localserver.running_state(inst))
    for line in launch.lines():
        out.print(line, markup=False, highlight=False, soft_wrap=True)
    if kit is not None:
        for path in browser_kit.write_kit(kit):
            out.print(f"  wrote        {path}", markup=False, highlight=False, soft_wrap=True)
    if open_:
        import webbrowser

        webbrowser.open(launch.url)
