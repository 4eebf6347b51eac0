"""The official implementation the interop tests compare with: Debian's onnx 1.12."""
import importlib

ORACLE = "1.12"


def load(*submodules):
    """Imports onnx and the given submodules ("checker", "parser", ...) and returns onnx,
    or prints a TAP plan that skips the whole test and returns None when onnx 1.12 is not
    installed."""
    try:
        import onnx
        for name in submodules:
            importlib.import_module("onnx." + name)
    except Exception:  # ImportError, or a broken installation
        print("1..0 # SKIP onnx %s not installed" % ORACLE)
        return None
    version = getattr(onnx, "__version__", "?")
    if not (version == ORACLE or version.startswith(ORACLE + ".")):
        print("1..0 # SKIP onnx %s not installed (found onnx %s)" % (ORACLE, version))
        return None
    return onnx
