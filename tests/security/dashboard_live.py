"""dashboard_live.py -- does an open dashboard follow a change by itself?

Usage: dashboard_live.py CHROMIUM URL BEFORE AFTER CMD...

Opens URL in headless Chromium (driven over the DevTools protocol on a
pipe), waits until the view's heading reads BEFORE, runs CMD (the change),
then waits, without reloading the page, until the heading reads AFTER.
Prints each heading it saw; exits 0 when both were seen in time."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def main():
    chromium, url, before, after, cmd = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
    to_chrome_r, to_chrome_w = os.pipe()
    from_chrome_r, from_chrome_w = os.pipe()
    profile = tempfile.mkdtemp()
    # Chromium reads commands on fd 3 and answers on fd 4.
    proc = subprocess.Popen(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--ignore-certificate-errors",
         "--user-data-dir=" + profile, "--remote-debugging-pipe", "about:blank"],
        pass_fds=(3, 4), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        preexec_fn=lambda: (os.dup2(to_chrome_r, 3), os.dup2(from_chrome_w, 4)))
    os.close(to_chrome_r)
    os.close(from_chrome_w)
    buf = b""
    ids = [0]

    def call(method, params=None, session=None):
        nonlocal buf
        ids[0] += 1
        msg = {"id": ids[0], "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(to_chrome_w, json.dumps(msg).encode() + b"\0")
        while True:
            while b"\0" not in buf:
                chunk = os.read(from_chrome_r, 65536)
                if not chunk:
                    raise SystemExit("chromium closed the pipe")
                buf += chunk
            raw, buf = buf.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == ids[0]:
                if "error" in reply:
                    raise SystemExit("%s: %s" % (method, reply["error"]))
                return reply["result"]

    def heading(session):
        r = call("Runtime.evaluate", {"expression": "(document.querySelector('main h2') || {}).textContent || ''",
                                      "returnByValue": True}, session)
        return r["result"].get("value", "")

    def wait(session, want, secs):
        seen = None
        deadline = time.time() + secs
        while time.time() < deadline:
            h = heading(session)
            if h != seen:
                print("heading: " + h)
                seen = h
            if h == want:
                return True
            time.sleep(0.2)
        return False

    ok = False
    try:
        target = call("Target.createTarget", {"url": url})["targetId"]
        session = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        if wait(session, before, 30):
            loads = call("Runtime.evaluate", {"expression": "performance.getEntriesByType('navigation').length",
                                              "returnByValue": True}, session)
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            ok = wait(session, after, 30)
            again = call("Runtime.evaluate", {"expression": "performance.getEntriesByType('navigation').length",
                                              "returnByValue": True}, session)
            if loads != again:
                print("the page was reloaded")
                ok = False
    finally:
        # Browser.close lets Chromium's processes end before the profile goes.
        try:
            call("Browser.close")
            proc.wait(timeout=10)
        except (Exception, SystemExit):
            proc.kill()
            proc.wait()
        shutil.rmtree(profile, ignore_errors=True)
    print("followed" if ok else "did not follow")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
