"""The release of another project that agui-fsm names: the TypeScript client its ``reference``
profile reproduces.

The one place every help text and generated file takes it from, so that moving the reference
to a newer release is one edit here (and the pin of ``reference-driver/package.json``, which
tests/test_misuse.py holds equal to it, with every mention of it in README.md and docs/).
"""

REFERENCE_PACKAGE = "@assistant-ui/react-ag-ui"
REFERENCE_VERSION = "0.0.58"
REFERENCE_RELEASE = f"{REFERENCE_PACKAGE} {REFERENCE_VERSION}"
