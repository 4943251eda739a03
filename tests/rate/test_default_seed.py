"""`rate init` without --seed builds the study with the default seed, written into study.json, so
the same study can be built again (it used to refuse)."""

import json

from diveval.cli import main
from diveval.rate.study import DEFAULT_SEED, STUDY_FILE


def init(tmp_path, capsys, name, *extra):
    systems = []
    for system in ("a", "b"):
        path = tmp_path / f"{system}.txt"
        path.write_text("".join(f"{system} answer {i}\n" for i in range(20)), encoding="utf-8")
        systems.append(str(path))
    folder = tmp_path / name
    code = main(["rate", "init", *systems, "--subsets", "3", "--size", "4", "--open", *extra,
                 "-o", str(folder)])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    return json.loads((folder / STUDY_FILE).read_text(encoding="utf-8")), out


def test_init_without_seed_records_the_default(tmp_path, capsys):
    study, out = init(tmp_path, capsys, "plain")
    assert study["seed"] == DEFAULT_SEED and f"(seed {DEFAULT_SEED})" in out
    again, _ = init(tmp_path, capsys, "again", "--seed", str(DEFAULT_SEED))
    assert again["pages"] == study["pages"]
    other, _ = init(tmp_path, capsys, "other", "--seed", str(DEFAULT_SEED + 1))
    assert other["seed"] == DEFAULT_SEED + 1
