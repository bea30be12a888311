"""What the *_parity.py scripts share: the same `facts(torch_or_ember)` code is run with PyTorch once
(`<a Python with torch> python/tests/<name>_parity.py --record` writes its answers to a JSON file under
data/) and with Ember by the tests, which compare against that file (torch is never imported there)."""
import json
import sys


def record_main(facts, data, doc, argv=None):
    """The scripts' command line: with --record, runs facts(torch) and writes the answers to data."""
    argv = sys.argv[1:] if argv is None else argv
    if "--record" not in argv:
        raise SystemExit(doc)
    import torch  # noqa: PLC0415 - only when recording
    res = facts(torch)
    res["_recorded_with"] = f"torch {torch.__version__}"
    with open(data, "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)
    print(f"wrote {len(res) - 1} facts to {data}")


def raises(fn):
    """The name of the exception type fn() raises (the fact to compare), or None."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type is the fact
        return type(e).__name__
    return None


def recorded(data):
    """The recorded answers of data (without the "_recorded_with" note)."""
    with open(data) as f:
        return {k: v for k, v in json.load(f).items() if not k.startswith("_")}


def parity_tests(script, expected=None):
    """The tests a test module takes from a parity script (bind them: `ours, test_same_names,
    test_matches_pytorch = parity_tests(script)`): a module-scoped fixture with Ember's facts, the same
    names as recorded, and each recorded fact equal to Ember's (or to expected(key, recorded value))."""
    import pytest  # noqa: PLC0415 - (the scripts themselves run without pytest when recording)

    import ember  # noqa: PLC0415
    want = recorded(script.DATA)

    @pytest.fixture(scope="module")
    def ours():
        return script.facts(ember)

    def test_same_names(ours):
        assert set(ours) == set(want)

    @pytest.mark.parametrize("key", sorted(want))
    def test_matches_pytorch(ours, key):
        w = want[key] if expected is None else expected(key, want[key])
        assert ours[key] == w, f"{key}: Ember gives {ours[key]!r}, PyTorch {w!r}"

    return ours, test_same_names, test_matches_pytorch
