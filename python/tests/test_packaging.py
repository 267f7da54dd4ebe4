"""Packaging: pip install ./python into a fresh virtual environment (system
site packages visible, for igraph and numpy), offline, with and without
build isolation; the package imported from outside the source tree; pip
wheel; the build's errors without Go or a C compiler; the version check at
import. Builds the library with Go (cached builds take seconds); set
AUTHPPR_SKIP_PIP=1 to skip the pip installs."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.dirname(HERE)
sys.path.insert(0, PYDIR)

import authppr  # noqa: E402

SKIP_PIP = os.environ.get("AUTHPPR_SKIP_PIP") == "1" or shutil.which("go") is None
WHY = "AUTHPPR_SKIP_PIP=1 or no go on PATH: pip install tests skipped"


def run(cmd, cwd=None, env=None, timeout=900):
    return subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=timeout)


def clean_env(**kw):
    env = {k: v for k, v in os.environ.items() if k not in ("AUTHPPR_LIB", "PYTHONPATH")}
    env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")  # offline: nothing from an index
    env.update(kw)
    return env


CHECK = r"""
import os, sys, authppr
assert not authppr.__file__.startswith(%(src)r), authppr.__file__
assert authppr.__version__ == authppr.library_version(), (authppr.__version__, authppr.library_version())
assert os.path.dirname(authppr.library_path()) == os.path.dirname(authppr.__file__)
g = authppr.Graph(3, [(0, 1), (1, 2)], directed=False, channels=["a", ("a", "b")], names=["x", "y", "z"])
s = g.personalized_pagerank(reset={"x": 1})
assert abs(sum(s) - 1) < 1e-9
d = authppr.Guard(g, trust=["a"]).select({"x": 1}, 1, candidates=["y", "z"])
try:
    import numpy
except ImportError:
    pass
else:
    import authppr.hipporag
st = authppr.Store.memory()
st.writer("w").add_edges(["p"], ["q"])
print("OK", authppr.__version__, authppr.__file__)
"""


@unittest.skipIf(SKIP_PIP, WHY)
class PipInstall(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="authppr-pip-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def venv(self, name):
        path = os.path.join(self.tmp, name)
        p = run([sys.executable, "-m", "venv", "--system-site-packages", path])
        if p.returncode != 0:
            self.skipTest("python -m venv failed (Debian: apt-get install python3-venv): " + p.stdout[-500:])
        return os.path.join(path, "bin", "python")

    def check_install(self, name, *pip_args):
        py = self.venv(name)
        p = run([py, "-m", "pip", "install", "--no-deps", *pip_args, PYDIR], env=clean_env())
        self.assertEqual(p.returncode, 0, p.stdout[-3000:])
        # From outside the source tree, nothing of it on the path.
        p = run([py, "-c", CHECK % {"src": PYDIR}], cwd=self.tmp, env=clean_env())
        self.assertEqual(p.returncode, 0, p.stdout[-3000:])
        self.assertIn("OK " + authppr.__version__, p.stdout)

    def test_pip_install(self):
        """pip install ./python: build isolation with nothing to fetch (the
        backend is in the tree and needs only the standard library)."""
        self.check_install("isolated")

    def test_pip_install_no_build_isolation(self):
        self.check_install("system", "--no-build-isolation")

    def test_pip_wheel(self):
        out = os.path.join(self.tmp, "wheels")
        p = run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", out, PYDIR], env=clean_env())
        self.assertEqual(p.returncode, 0, p.stdout[-3000:])
        wheels = [f for f in os.listdir(out) if f.endswith(".whl")]
        self.assertEqual(len(wheels), 1, wheels)
        self.assertTrue(wheels[0].startswith("authppr-%s-py3-none-" % authppr.__version__), wheels[0])
        with zipfile.ZipFile(os.path.join(out, wheels[0])) as z:
            names = set(z.namelist())
            record = z.read("authppr-%s.dist-info/RECORD" % authppr.__version__).decode()
        for f in ("authppr/__init__.py", "authppr/hipporag.py", "authppr/_version.py", "authppr/libauthppr.so",
                  "authppr/authppr.h"):
            self.assertIn(f, names)
            self.assertIn(f + ",sha256=", record)


class BuildErrors(unittest.TestCase):
    """The backend's errors name what to install (no build runs)."""

    def backend(self, env):
        code = ("import sys; sys.path.insert(0, %r); import authppr_build as b\n"
                "try:\n    b.build_library(%r)\nexcept b.BuildError as e:\n    print('BuildError:', e)\n"
                % (os.path.join(PYDIR, "build_backend"), tempfile.gettempdir()))
        return run([sys.executable, "-c", code], env=env)

    def test_no_go(self):
        env = clean_env(PATH="/nonexistent")
        env.pop("GO", None)
        p = self.backend(env)
        self.assertIn("BuildError: authppr build: the Go toolchain (go) is not on PATH", p.stdout)
        self.assertIn("Install Go", p.stdout)

    @unittest.skipIf(shutil.which("go") is None, "no go on PATH")
    def test_no_c_compiler(self):
        p = self.backend(clean_env(CC="/nonexistent/cc"))
        self.assertIn("BuildError: authppr build: cgo needs a C compiler", p.stdout)
        self.assertIn("apt-get install gcc", p.stdout)

    def test_version_is_the_go_modules(self):
        sys.path.insert(0, os.path.join(PYDIR, "build_backend"))
        try:
            import authppr_build
        finally:
            sys.path.pop(0)
        self.assertEqual(authppr_build.version(), authppr.__version__)
        try:
            import tomllib
        except ImportError:
            return
        with open(os.path.join(PYDIR, "pyproject.toml"), "rb") as f:
            text = f.read().decode()
        want = {k: v for k, v in tomllib.loads(text)["project"].items() if isinstance(v, str)}
        self.assertEqual(authppr_build._project_fallback(text), want)


class VersionCheck(unittest.TestCase):
    def test_mismatch_is_an_import_error_naming_both(self):
        e = authppr._version_error("0.0.9", "/x/libauthppr.so")
        self.assertIsInstance(e, ImportError)
        self.assertIn("is version 0.0.9, the Python package is version %s" % authppr.__version__, str(e))
        self.assertIsNone(authppr._version_error(authppr.__version__, "/x"))
        e = authppr._version_error(None, "/x/libauthppr.so")
        self.assertIn("reports no version", str(e))

    def test_library_without_a_version(self):
        """A library that predates versions (here: libm, which has no
        authppr_version) is refused at import."""
        import ctypes.util
        libm = ctypes.util.find_library("m")
        path = next((p for p in ("/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib/x86_64-linux-gnu/libm.so.6",
                                 "/lib64/libm.so.6") if os.path.exists(p)), None)
        if path is None:
            self.skipTest("no libm found (%s)" % libm)
        env = dict(os.environ, AUTHPPR_LIB=path, PYTHONPATH=PYDIR)
        p = run([sys.executable, "-c", "import authppr"], env=env)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("ImportError: authppr: the shared library %s reports no version" % path, p.stdout)


if __name__ == "__main__":
    unittest.main()
