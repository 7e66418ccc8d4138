"""The gzwrap command's files and signals: what -f replaces (regular files only; FIFOs
and devices are written into, links followed), modes and owners kept, temporaries that
leave nothing behind, ignored signals, the terminal guard, standard output streamed,
errors with the flag as typed and the system's reason, and gzip's conventions (-c, -k,
-o -, default output names, a progress line). Device nodes and a full file system are
made in a private mount namespace (unshare -m, a tmpfs), as root."""

from __future__ import annotations

import gzip
import os
import select
import shlex
import shutil
import signal
import stat
import subprocess
import threading
import time
import zlib
from pathlib import Path

import pytest

from gzwrap_support import cli, decode, run

DATA = b"".join(b"line %d of the files and signals test\n" % i for i in range(40_000))


def _gz(tmp_path: Path, name: str = "x.gz") -> Path:
    src = tmp_path / name
    src.write_bytes(gzip.compress(DATA, mtime=0))
    return src


def _o_tmpfile_works(folder: Path) -> bool:
    try:
        os.close(os.open(folder, os.O_TMPFILE | os.O_WRONLY, 0o600))
    except OSError:
        return False
    return True


# ---- what -f replaces -----------------------------------------------------------------


def test_force_writes_into_a_fifo_and_leaves_it_a_fifo(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    p = run("-f", "-o", fifo, _gz(tmp_path))
    reader.join(timeout=60)
    assert p.returncode == 0, p.stderr
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert zlib.decompress(got[0]) == DATA  # its reader got the output
    assert run("-o", fifo, tmp_path / "x.gz").returncode == 2  # without -f: it exists


def test_force_follows_a_symlink_and_keeps_it(tmp_path):
    target, link = tmp_path / "target.zz", tmp_path / "link.zz"
    target.write_bytes(b"old")
    link.symlink_to(target.name)
    p = run("-f", "-o", link, _gz(tmp_path))
    assert p.returncode == 0, p.stderr
    assert link.is_symlink() and os.readlink(link) == "target.zz"
    assert zlib.decompress(target.read_bytes()) == DATA
    dangling = tmp_path / "dangling.zz"
    dangling.symlink_to("nowhere")
    p = run("-f", "-o", dangling, tmp_path / "x.gz")
    assert p.returncode == 3 and b"symbolic link to nothing" in p.stderr
    assert dangling.is_symlink() and not (tmp_path / "nowhere").exists()


def test_force_keeps_the_mode_and_as_root_the_owner(tmp_path):
    src = _gz(tmp_path, "a.gz")
    src.chmod(0o600)
    if os.geteuid() == 0:
        os.chown(src, 1234, 4321)
    p = run("-f", "--to", "gzip", "-o", src, src)  # the case: in place
    assert p.returncode == 0, p.stderr
    st = src.stat()
    assert stat.S_IMODE(st.st_mode) == 0o600
    if os.geteuid() == 0:
        assert (st.st_uid, st.st_gid) == (1234, 4321)
    assert gzip.decompress(src.read_bytes()) == DATA
    new = tmp_path / "new.zz"  # a new file gets 0666 less the umask, as gzip gives
    assert run("-o", new, src).returncode == 0
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(new.stat().st_mode) == 0o666 & ~umask


def _in_private_tmpfs(folder: Path, script: str, **env: str) -> subprocess.CompletedProcess:
    """Run `script` (sh) in `folder` mounted as a fresh 256 KiB tmpfs in a private mount
    namespace, so that device nodes and a full file system touch nothing outside; skip
    where that is not allowed."""
    if os.geteuid() != 0:
        pytest.skip("device nodes and mounts need root (unshare -m, mknod, mount -t tmpfs)")
    if not shutil.which("unshare"):
        pytest.skip("no unshare(1) to make a private mount namespace")
    probe = subprocess.run(["unshare", "-m", "--propagation", "private", "true"],
                           capture_output=True)
    if probe.returncode:
        pytest.skip(f"unshare -m not allowed here: {probe.stderr.decode().strip()}")
    folder.mkdir()
    mount = 'mount -t tmpfs -o size=256k gzwrap-test "$D" && cd "$D" && '
    return subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                           mount + script], capture_output=True, timeout=120,
                          env={**os.environ, "G": str(cli()), "D": str(folder), **env})


def test_force_over_a_device_writes_into_it_and_a_full_disk_says_so(tmp_path):
    """-f -o /dev/null as root must not replace /dev/null: made here as a node on a tmpfs,
    with /dev/full (ENOSPC on every write) and a small tmpfs that fills up."""
    src = _gz(tmp_path)
    big = tmp_path / "big.gz"
    big.write_bytes(gzip.compress(os.urandom(1 << 20), 1, mtime=0))
    p = _in_private_tmpfs(
        tmp_path / "mnt",
        'mknod null c 1 3 && mknod full c 1 7 && '
        '"$G" -f -o null "$SRC"; echo "null $? $(stat -c %F null)"; '
        '"$G" -f -o full "$SRC" 2>&1; echo "full $? $(stat -c %F full)"; '
        '"$G" -o out.zz "$BIG" 2>&1; echo "disk $? $(ls -A | tr "\\n" " ")"',
        SRC=str(src), BIG=str(big))
    out = p.stdout.decode()
    assert "null 0 character special file" in out, (out, p.stderr)
    assert "No space left on device" in out and "full 3 character special file" in out, out
    disk = [line for line in out.splitlines() if line.startswith("disk ")][0]
    assert disk.split()[1:] == ["3", "full", "null"], out  # no out.zz, no temporary
    assert "out.zz" in out and "write error" not in out


# ---- temporaries and signals ------------------------------------------------------------


def _start_blocked(tmp_path: Path, *args: str, **kw) -> tuple[subprocess.Popen, bytes]:
    """gzwrap -o with half of its input given and standard input left open: it has begun
    its output and waits."""
    blob = gzip.compress(os.urandom(1 << 20), 1, mtime=0)
    p = subprocess.Popen([str(cli()), *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, **kw)
    p.stdin.write(blob[:len(blob) // 2])
    p.stdin.flush()
    time.sleep(0.5)
    return p, blob


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_a_killed_conversion_leaves_no_temporary(tmp_path, sig):
    if not _o_tmpfile_works(tmp_path):
        pytest.skip(f"{tmp_path}'s file system has no O_TMPFILE (the named fallback is used)")
    out = tmp_path / "out.zz"
    p, _ = _start_blocked(tmp_path, "-o", str(out))
    assert os.listdir(tmp_path) == []  # unnamed while it works
    p.send_signal(sig)
    p.wait(timeout=30)
    assert p.returncode == -sig
    assert os.listdir(tmp_path) == []


def test_an_ignored_hangup_stays_ignored(tmp_path):
    """Under nohup SIGHUP is ignored when gzwrap starts; gzip survives it, so must gzwrap.
    Not ignored, it ends the conversion as before."""
    out = tmp_path / "out.zz"

    def ignore_hup():
        signal.signal(signal.SIGHUP, signal.SIG_IGN)

    p, blob = _start_blocked(tmp_path, "-o", str(out), preexec_fn=ignore_hup)
    p.send_signal(signal.SIGHUP)
    time.sleep(0.2)
    _, err = p.communicate(blob[len(blob) // 2:], timeout=60)
    assert p.returncode == 0, err
    assert len(zlib.decompress(out.read_bytes())) == 1 << 20
    # SIGHUP at its default whatever this process has (pytest under nohup ignores it)
    q, _ = _start_blocked(tmp_path, "-f", "-o", str(out),
                          preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL))
    q.send_signal(signal.SIGHUP)
    q.wait(timeout=30)
    assert q.returncode == -signal.SIGHUP


# ---- standard output ------------------------------------------------------------------


def test_terminal_guard_holds_whatever_the_verbosity(tmp_path):
    if not shutil.which("script"):
        pytest.skip("no script(1) to give gzwrap a terminal")
    src = _gz(tmp_path)
    for flags in ("-c", "-v -c", "-v -q -c", "-o -"):
        cmd = f"{shlex.quote(str(cli()))} {flags} {shlex.quote(str(src))}"
        p = subprocess.run(["script", "-qec", cmd, "/dev/null"], capture_output=True,
                           timeout=60)
        assert b"will not write compressed data to a terminal" in p.stdout, flags
        assert len(p.stdout) < 400, (flags, len(p.stdout))


def test_dash_output_is_standard_output(tmp_path):
    src = _gz(tmp_path)
    p = subprocess.run([str(cli()), "-o", "-", src.name], cwd=tmp_path, capture_output=True)
    assert p.returncode == 0 and zlib.decompress(p.stdout) == DATA
    assert not (tmp_path / "-").exists()


def _read_some(p: subprocess.Popen, timeout: float = 20) -> bytes:
    ready, _, _ = select.select([p.stdout], [], [], timeout)
    return os.read(p.stdout.fileno(), 1 << 16) if ready else b""


@pytest.mark.parametrize("src_format", ["zlib", "gzip members", "one gzip member"])
def test_standard_output_streams_before_the_input_ends(src_format):
    """zlib input passes through at once; gzip input block by block (each member's last
    block waits until the next member shows up or the input ends): a member still being
    read has its earlier blocks out already."""
    chunk = os.urandom(1 << 20)
    text = b"".join(b"%d bottles of beer on the wall\n" % i for i in range(200_000))
    if src_format == "zlib":
        first = zlib.compress(chunk * 2, 1)[:(1 << 20) + 1000]
    elif src_format == "gzip members":
        first = gzip.compress(chunk, 1, mtime=0) + gzip.compress(chunk, 1, mtime=0)[:100]
    else:  # the first part of one member, of random data (stored blocks) and text
        whole = gzip.compress(chunk + text, 6, mtime=0)
        first = whole[: len(whole) * 3 // 4]
    p = subprocess.Popen([str(cli()), "--to", "gzip", "-q"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    def feed():
        try:
            p.stdin.write(first)
            p.stdin.flush()
        except BrokenPipeError:  # killed below before it read everything
            pass

    feeder = threading.Thread(target=feed)
    feeder.start()  # standard input stays open: the conversion cannot have finished
    try:
        assert len(_read_some(p)) > 0, "nothing came out before the end of the input"
    finally:
        p.kill()
        p.wait()
        feeder.join()


def _input_position(pid: int, path: Path) -> int | None:
    """The file offset of process `pid`'s descriptor open on `path`, or None."""
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") == str(path):
                info = Path(f"/proc/{pid}/fdinfo/{fd}").read_text()
                return int(info.split("pos:")[1].split()[0])
        except OSError:
            pass
    return None


def test_compress_to_a_pipe_streams_from_a_regular_file(tmp_path):
    """COMPRESS()'s length comes first: from a regular file a first pass measures the
    data, and the value then streams as it is made. With the pipe left unread, gzwrap
    waits with its input part read; held whole, it would have read all of it first."""
    data = os.urandom(6 << 20) + DATA
    src = tmp_path / "big.gz"  # two members: the join streams too
    src.write_bytes(gzip.compress(data[:1 << 20], 1, mtime=0) +
                    gzip.compress(data[1 << 20:], 1, mtime=0))
    p = subprocess.Popen([str(cli()), "--to", "mysql", "-q", "-c", str(src)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        last, same, deadline = None, 0, time.monotonic() + 30
        while same < 5 and time.monotonic() < deadline:  # until it waits on the pipe
            time.sleep(0.1)
            pos = _input_position(p.pid, src)
            same, last = (same + 1 if pos == last else 0), pos
        assert last is not None and 0 < last < src.stat().st_size, (last, src.stat().st_size)
        out = p.stdout.read()
        assert p.wait() == 0 and decode(out, "mysql") == data
        assert out[:4] == len(data).to_bytes(4, "little")
    finally:
        p.kill()
        p.wait()


def _run_env(env: dict, *args: str, data: bytes) -> subprocess.CompletedProcess:
    return subprocess.run([str(cli()), *args], input=data, capture_output=True, timeout=300,
                          env={**os.environ, **env})


def test_a_pipe_waits_in_memory_and_a_large_hold_in_the_spool(tmp_path):
    """What a pipe waits for (a gzip member's blocks until the next one shows up, a
    COMPRESS() value's length) is held in memory up to 8 MiB: no spool is needed, so a
    $TMPDIR that does not exist does not matter. A COMPRESS() value from a pipe that grows
    past it moves to the spool, and its length is still patched in; there it needs
    $TMPDIR."""
    missing_tmp = {"TMPDIR": str(tmp_path / "no-such-dir")}
    two = gzip.compress(DATA, 6, mtime=0) + gzip.compress(DATA[::-1], 1, mtime=0)
    p = _run_env(missing_tmp, "--to", "zlib", "-q", data=two)
    assert p.returncode == 0, p.stderr
    assert decode(p.stdout, "zlib") == DATA + DATA[::-1]
    small = _run_env(missing_tmp, "--to", "mysql", "-q", data=zlib.compress(DATA))
    assert small.returncode == 0 and decode(small.stdout, "mysql") == DATA
    big = os.urandom(9 << 20)  # stored blocks: the output is as large
    z = zlib.compress(big, 1)
    q = _run_env({}, "--to", "mysql", "-q", data=z)
    assert q.returncode == 0, q.stderr
    assert q.stdout[:4] == len(big).to_bytes(4, "little") and decode(q.stdout, "mysql") == big
    r = _run_env(missing_tmp, "--to", "mysql", "-q", data=z)
    assert r.returncode != 0 and b"spool" in r.stderr and r.stdout == b""


def test_compress_target_and_failures_on_standard_output():
    """COMPRESS() from a pipe is held whole (its length comes first); a failed conversion ends
    without the target's trailer; a regular file as standard output is cut back."""
    data = os.urandom(300_000)
    p = run("--to", "mysql", data=zlib.compress(data))
    assert p.returncode == 0 and p.stdout[:4] == len(data).to_bytes(4, "little")
    bad = bytearray(zlib.compress(data, 1))
    bad[-1] ^= 1
    q = run("--to", "gzip", data=bytes(bad))
    assert q.returncode == 1 and b"Adler-32" in q.stderr
    d = zlib.decompressobj(31)
    d.decompress(q.stdout)
    assert not d.eof  # a prefix at most: no gzip trailer


def test_standard_output_as_a_file_is_written_in_place_and_cut_back_on_failure(tmp_path):
    data = os.urandom(200_000)
    two = gzip.compress(data[:1000], mtime=0) + gzip.compress(data[1000:], mtime=0)
    dst = tmp_path / "out"
    with open(dst, "wb") as f:
        f.write(b"kept:")
        f.flush()
        p = subprocess.run([str(cli()), "--to", "mysql"], input=two, stdout=f,
                           capture_output=False, stderr=subprocess.PIPE)
    assert p.returncode == 0, p.stderr
    blob = dst.read_bytes()
    assert blob[:5] == b"kept:" and blob[5:9] == len(data).to_bytes(4, "little")
    assert zlib.decompress(blob[9:]) == data
    with open(dst, "wb") as f:
        f.write(b"kept:")
        f.flush()
        p = subprocess.run([str(cli())], input=two[:-3], stdout=f, stderr=subprocess.PIPE)
    assert p.returncode == 1 and dst.read_bytes() == b"kept:"


# ---- messages ---------------------------------------------------------------------------


def test_errors_name_the_flag_as_typed_and_the_system_reason(tmp_path):
    p = run(data=b"")
    assert b"--from mysql" in p.stderr and b"`from`" not in p.stderr
    p = run(data=b"\x78\x9c\x04\x00\x78\x9c\x01\x02")
    assert b"say which with --from" in p.stderr
    for typed, said in ((["--to=bzip2"], b"--to bzip2"), (["-tbzip2"], b"-t bzip2"),
                        (["--from", "x"], b"--from x"), (["-F", "x"], b"-F x")):
        p = run(*typed)
        assert p.returncode == 2 and p.stderr.startswith(b"gzwrap: " + said + b": "), p.stderr
    p = run("-c", tmp_path)
    assert p.returncode == 3 and b"Is a directory" in p.stderr and b"read error" not in p.stderr
    (tmp_path / "d.zz").mkdir()
    p = run("-f", "-o", tmp_path / "d.zz", _gz(tmp_path))
    assert p.returncode == 3 and b"Is a directory" in p.stderr


def test_a_directory_as_output_is_refused_before_any_work(tmp_path):
    """A directory, or a name ending in / (found or not), with or without -f: exit 3 with
    the system's reason before the input is read (no note about its header fields)."""
    src = tmp_path / "x.gz"
    src.write_bytes(gzip.compress(DATA, mtime=1))  # a time, which zlib cannot carry
    (tmp_path / "dir").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "dir")
    for target in ("dir", "dir/", "missing/", "link"):
        for force in ((), ("-f",)):
            p = run(*force, "-o", f"{tmp_path}/{target}", src)
            assert p.returncode == 3, (target, force, p.stderr)
            assert b"Is a directory" in p.stderr and b"note" not in p.stderr, p.stderr
    assert sorted(x.name for x in tmp_path.iterdir()) == ["dir", "link", "x.gz"]
    assert not any((tmp_path / "dir").iterdir())


# ---- gzip's conventions -------------------------------------------------------------------


def test_gzip_conventions_default_names_c_and_k(tmp_path):
    src = _gz(tmp_path)
    assert run("-k", src).returncode == 0  # INPUT is kept, as always
    assert src.exists() and zlib.decompress((tmp_path / "x.zz").read_bytes()) == DATA
    assert run("--to", "gzip", tmp_path / "x.zz").returncode == 2  # x.gz exists
    assert run("-f", "--to", "gzip", tmp_path / "x.zz").returncode == 0
    assert gzip.decompress(src.read_bytes()) == DATA
    p = run("--to", "gzip", src)  # x.gz -> x.gz: its own output
    assert p.returncode == 2 and b"its own output" in p.stderr
    assert run("--to", "mysql", src).returncode == 0 and (tmp_path / "x.my").exists()
    (tmp_path / "plain").write_bytes(zlib.compress(DATA))
    assert run("--to", "deflate", tmp_path / "plain").returncode == 0
    assert zlib.decompress((tmp_path / "plain.deflate").read_bytes(), -15) == DATA
    c = run("-c", src)
    assert c.returncode == 0 and zlib.decompress(c.stdout) == DATA
    assert run("-c", "-o", tmp_path / "y", src).returncode == 2
    assert b"--stdout" in run("--help").stdout


def test_progress_line_on_a_terminal_for_large_inputs(tmp_path):
    if not shutil.which("script"):
        pytest.skip("no script(1) to give gzwrap a terminal")
    big = tmp_path / "big.gz"
    big.write_bytes(gzip.compress(b"\0" * (65 << 20), 0, mtime=0))  # stored: 65 MiB on disk
    cmd = f"{shlex.quote(str(cli()))} -o {shlex.quote(str(tmp_path / 'big.zz'))} " \
          f"{shlex.quote(str(big))}"
    p = subprocess.run(["script", "-qec", cmd, "/dev/null"], capture_output=True, timeout=120)
    assert p.returncode == 0, p.stdout
    assert b"% of 65 MiB" in p.stdout
    q = run("-o", tmp_path / "quiet.zz", big)  # not a terminal: no line
    assert q.returncode == 0 and q.stderr.count(b"%") == 0
