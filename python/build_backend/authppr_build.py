"""The PEP 517 build backend of the authppr Python package (standard
library only, so pip builds it offline, with build isolation or without).

build_wheel builds the shared library with Go (go build
-buildmode=c-shared ./cabi, which needs cgo and so a C compiler) and packs
it with the package into a wheel tagged py3-none-<platform>: the package is
ctypes over the library, so one wheel serves every Python 3 on that
platform. build_sdist packs the Python files and the Go module's packages
the library is built from (go.mod, go.sum and the non-test Go files of the
packages ./cabi imports from the module); building from it fetches the Go
module's dependencies through the Go module proxy, as any Go build does.
build_editable (pip install -e) builds the library into the source tree and
installs a path file pointing at it.

The version is the Go module's internal/version.Version; the build refuses
to run when authppr/_version.py says otherwise. A missing Go toolchain,
one older than go.mod asks for, or a missing C compiler is an error naming
what to install.
"""

import base64
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import zipfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # python/
NAME = "authppr"
LIB = "libauthppr.so"


class BuildError(Exception):
    """A build that cannot proceed, saying what to install or fix."""


# ---- metadata -------------------------------------------------------------


def _project():
    """The [project] table of pyproject.toml (tomllib where Python has it;
    otherwise the plain key = "string" lines this file uses)."""
    path = os.path.join(HERE, "pyproject.toml")
    with open(path, "rb") as f:
        raw = f.read()
    try:
        import tomllib
    except ImportError:
        return _project_fallback(raw.decode("utf-8"))
    return tomllib.loads(raw.decode("utf-8")).get("project", {})


def _project_fallback(text):
    out, section = {}, None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line.strip("[]").strip()
            continue
        m = re.match(r'^([A-Za-z-]+)\s*=\s*"((?:[^"\\]|\\.)*)"', line)
        if section == "project" and m:
            out[m.group(1)] = m.group(2).replace('\\"', '"')
    return out


def _go_module():
    """The Go module's root: the checkout around python/, or the copy an
    sdist carries."""
    for root in (os.environ.get("AUTHPPR_GO_MODULE"), os.path.dirname(HERE), os.path.join(HERE, "_gomod")):
        if root and os.path.isfile(os.path.join(root, "go.mod")) and os.path.isdir(os.path.join(root, "cabi")):
            return root
    raise BuildError("authppr build: the Go module (go.mod and cabi/) is neither beside python/ nor in _gomod/: "
                     "build from a checkout of the repository or from an sdist")


def version():
    """internal/version.Version, checked against authppr/_version.py."""
    path = os.path.join(_go_module(), "internal", "version", "version.go")
    with open(path, encoding="utf-8") as f:
        m = re.search(r'^const Version = "([^"]+)"$', f.read(), re.M)
    if not m:
        raise BuildError("authppr build: %s: no line const Version = \"...\"" % path)
    go = m.group(1)
    with open(os.path.join(HERE, NAME, "_version.py"), encoding="utf-8") as f:
        m = re.search(r'^__version__ = "([^"]+)"$', f.read(), re.M)
    py = m.group(1) if m else None
    if py != go:
        raise BuildError("authppr build: the Go module is version %s, authppr/_version.py says %s: change both together"
                         % (go, py))
    return go


def _metadata(ver):
    p = _project()
    lines = ["Metadata-Version: 2.1", "Name: %s" % NAME, "Version: %s" % ver]
    if p.get("description"):
        lines.append("Summary: %s" % p["description"])
    if p.get("requires-python"):
        lines.append("Requires-Python: %s" % p["requires-python"])
    kw = p.get("keywords")
    if isinstance(kw, list) and kw:
        lines.append("Keywords: %s" % ",".join(kw))
    lines += ["Provides-Extra: igraph", "Requires-Dist: igraph; extra == \"igraph\"",
              "Provides-Extra: numpy", "Requires-Dist: numpy; extra == \"numpy\""]
    readme = os.path.join(HERE, "README.md")
    body = ""
    if os.path.isfile(readme):
        lines.append("Description-Content-Type: text/markdown")
        with open(readme, encoding="utf-8") as f:
            body = f.read()
    return "\n".join(lines) + "\n\n" + body


def _tag():
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return "py3-none-%s" % plat


# ---- the Go build ---------------------------------------------------------


def _run(cmd, cwd, env=None):
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    except OSError as e:
        raise BuildError("authppr build: cannot run %s: %s" % (cmd[0], e)) from None
    return p


def _go():
    """The go command, checked to exist and to be new enough."""
    go = os.environ.get("GO") or shutil.which("go")
    if go and not os.path.isabs(go):
        go = shutil.which(go)
    if not go or not os.access(go, os.X_OK):
        raise BuildError("authppr build: the Go toolchain (go) is not on PATH: the shared library is built with Go. "
                         "Install Go %s or later (https://go.dev/dl/; Debian/Ubuntu: apt-get install golang-go, if its "
                         "version is recent enough) and put it on PATH, or set GO=/path/to/go"
                         % (_go_wanted() or "1.x"))
    return go


def _go_wanted():
    try:
        with open(os.path.join(_go_module(), "go.mod"), encoding="utf-8") as f:
            m = re.search(r"^go (\d+\.\d+(?:\.\d+)?)$", f.read(), re.M)
        return m.group(1) if m else None
    except (OSError, BuildError):
        return None


def _vtuple(v):
    return tuple(int(x) for x in re.findall(r"\d+", v)[:3])


def build_library(dest):
    """Builds libauthppr.so into dest; returns its path."""
    root = _go_module()
    go = _go()
    env = dict(os.environ, CGO_ENABLED="1")
    # A Go older than go.mod's would fetch a newer toolchain from the
    # network: refuse it here, saying so, instead.
    env.setdefault("GOTOOLCHAIN", "local")
    p = _run([go, "env", "GOVERSION", "CC"], root, env)
    if p.returncode != 0:
        raise BuildError("authppr build: %s env failed: %s" % (go, p.stderr.strip()))
    out = p.stdout.split("\n")
    have, cc = out[0].strip(), (out[1].strip() if len(out) > 1 else "")
    want = _go_wanted()
    if want and have.startswith("go") and _vtuple(have[2:]) < _vtuple(want):
        raise BuildError("authppr build: %s is %s, the Go module needs Go %s or later: install a newer Go "
                         "(https://go.dev/dl/)" % (go, have, want))
    cc_cmd = (cc.split() or ["cc"])[0]
    if not shutil.which(cc_cmd):
        raise BuildError("authppr build: cgo needs a C compiler, and %r (go env CC) is not on PATH: install one "
                         "(Debian/Ubuntu: apt-get install gcc; Fedora: dnf install gcc; macOS: xcode-select --install) "
                         "or set CC to it" % cc_cmd)
    os.makedirs(dest, exist_ok=True)
    lib = os.path.join(dest, LIB)
    p = _run([go, "build", "-trimpath", "-buildmode=c-shared", "-ldflags=-s -w", "-o", lib, "./cabi"], root, env)
    if p.returncode != 0:
        raise BuildError("authppr build: go build -buildmode=c-shared ./cabi failed in %s:\n%s" % (root, p.stderr))
    header = os.path.join(dest, "libauthppr.h")
    if os.path.exists(header):
        os.remove(header)  # cgo's generated copy; the package ships cabi/authppr.h
    return lib


# ---- archives -------------------------------------------------------------


def _package_files():
    """(path in the wheel, path on disk) of the package's Python files."""
    pkg = os.path.join(HERE, NAME)
    out = []
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py"):
            out.append((NAME + "/" + name, os.path.join(pkg, name)))
    return out


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return "%s,sha256=%s,%d" % (arcname, digest, len(data))


def _write_wheel(wheel_directory, ver, files):
    """Writes a wheel of files ((arcname, bytes)) and returns its name."""
    tag = _tag()
    dist = "%s-%s" % (NAME, ver)
    name = "%s-%s.whl" % (dist, tag)
    info = dist + ".dist-info"
    files = list(files)
    files.append((info + "/METADATA", _metadata(ver).encode("utf-8")))
    files.append((info + "/WHEEL", ("Wheel-Version: 1.0\nGenerator: authppr_build\nRoot-Is-Purelib: false\nTag: %s\n"
                                    % tag).encode("ascii")))
    files.append((info + "/top_level.txt", (NAME + "\n").encode("ascii")))
    record = [_record_line(a, d) for a, d in files] + [info + "/RECORD,,"]
    files.append((info + "/RECORD", ("\n".join(record) + "\n").encode("utf-8")))
    os.makedirs(wheel_directory, exist_ok=True)
    path = os.path.join(wheel_directory, name)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for arcname, data in files:
            zi = zipfile.ZipInfo(arcname, date_time=(1980, 1, 1, 0, 0, 0))
            zi.external_attr = (0o755 if arcname.endswith(".so") else 0o644) << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
    return name


def _read(path):
    with open(path, "rb") as f:
        return f.read()


# ---- PEP 517 / PEP 660 hooks ---------------------------------------------


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    ver = version()
    with tempfile.TemporaryDirectory(prefix="authppr-build-") as tmp:
        lib = build_library(tmp)
        files = [(a, _read(p)) for a, p in _package_files()]
        files.append((NAME + "/" + LIB, _read(lib)))
        files.append((NAME + "/authppr.h", _read(os.path.join(_go_module(), "cabi", "authppr.h"))))
        return _write_wheel(wheel_directory, ver, files)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    ver = version()
    build_library(os.path.join(HERE, NAME))
    pth = (HERE + "\n").encode("utf-8")
    return _write_wheel(wheel_directory, ver, [("__editable___%s.pth" % NAME, pth)])


def _go_sources(root):
    """The module's files ./cabi is built from: go.mod, go.sum and the
    non-test Go (and C header) files of every module package it imports."""
    go = _go()
    p = _run([go, "list", "-deps", "-f", "{{if not .Standard}}{{.Dir}}{{end}}", "./cabi"], root,
             dict(os.environ, CGO_ENABLED="1", GOTOOLCHAIN=os.environ.get("GOTOOLCHAIN", "local")))
    if p.returncode != 0:
        raise BuildError("authppr build: go list ./cabi failed in %s:\n%s" % (root, p.stderr))
    out = ["go.mod", "go.sum", "internal/version/version.go"]
    for d in p.stdout.split():
        rel = os.path.relpath(d, root)
        if rel.startswith(".."):
            continue  # a dependency module: fetched by go build
        for name in sorted(os.listdir(d)):
            if (name.endswith(".go") and not name.endswith("_test.go")) or name.endswith(".h") or name.endswith(".s"):
                out.append(os.path.join(rel, name))
    return sorted(set(out))


def build_sdist(sdist_directory, config_settings=None):
    ver = version()
    root = _go_module()
    base = "%s-%s" % (NAME, ver)
    name = base + ".tar.gz"
    os.makedirs(sdist_directory, exist_ok=True)
    pkg_info = _metadata(ver).encode("utf-8")
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        def add(arcname, data):
            ti = tarfile.TarInfo(base + "/" + arcname)
            ti.size, ti.mode, ti.mtime = len(data), 0o644, 0
            tar.addfile(ti, io.BytesIO(data))
        add("PKG-INFO", pkg_info)
        for rel in ("pyproject.toml", "README.md", "build_backend/authppr_build.py"):
            if os.path.isfile(os.path.join(HERE, rel)):
                add(rel, _read(os.path.join(HERE, rel)))
        for arcname, path in _package_files():
            add(arcname, _read(path))
        for rel in _go_sources(root):
            add("_gomod/" + rel.replace(os.sep, "/"), _read(os.path.join(root, rel)))
    return name


if __name__ == "__main__":  # python build_backend/authppr_build.py wheel|sdist DIR
    try:
        print({"wheel": build_wheel, "sdist": build_sdist}[sys.argv[1]](sys.argv[2]))
    except BuildError as e:
        sys.exit(str(e))
