from cogmem.cli import app

app(prog_name="cogmem")
