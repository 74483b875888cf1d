"""Loading the libcpkit an installed package belongs to, before the extension module."""
import ctypes
import os


def load_installed_library():
    """Load libcpkit by the path `make install` wrote in _libpath.py (absent in the build
    tree). The extension's own dependency on libcpkit is then satisfied by this library,
    whatever the install prefix and without LD_LIBRARY_PATH. A missing file is left to the
    dynamic loader, which then reports the error on importing the extension."""
    try:
        from . import _libpath
    except ImportError:
        return
    if os.path.exists(_libpath.LIBCPKIT):
        ctypes.CDLL(_libpath.LIBCPKIT, mode=ctypes.RTLD_GLOBAL)
