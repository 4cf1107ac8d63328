"""Drive `attest web` in headless Chromium (Debian's, through /usr/bin/chromedriver).

Run by bins/attest/tests/web_browser.rs against a server it started on a seeded
database; prints one JSON object of what it saw, and exits non-zero with the reason
when a page does not do its job. Screenshots go to --out.

    python web_browser.py --base http://127.0.0.1:PORT --user ada \
        --family kdsweep --project distill-temp --claims paper/draft.md --out target/web-screenshots
"""

import argparse
import json
import os
import shutil
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

WIDTH = 1280


def browser():
    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
              f"--window-size={WIDTH},900", "--hide-scrollbars", "--force-device-scale-factor=1",
              "--lang=en-US"]:
        opts.add_argument(a)
    service = Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    return webdriver.Chrome(options=opts, service=service)


def shot(d, out, name, max_height=2200):
    """A screenshot of the whole page (up to max_height pixels tall)."""
    d.execute_script("window.scrollTo(0, 0)")
    h = d.execute_script("return Math.ceil(document.documentElement.scrollHeight)")
    d.set_window_size(WIDTH, min(max(h, 700), max_height))
    path = os.path.join(out, name)
    d.save_screenshot(path)
    d.set_window_size(WIDTH, 900)
    return path


def fail(msg, seen):
    seen["failed"] = msg
    print(json.dumps(seen, indent=2))
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    for k in ["base", "user", "family", "project", "claims", "out"]:
        ap.add_argument("--" + k, required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    seen = {}
    d = browser()
    wait = WebDriverWait(d, 20)
    try:
        # --- The reading list: click ✓ on the first item; the order and the caveat change.
        d.get(f"{a.base}/feed/{a.user}")
        items = lambda: [li.get_attribute("data-item") for li in d.find_elements(By.CSS_SELECTOR, "#items li")]
        caveat = lambda: d.find_element(By.ID, "caveat").text
        before, caveat_before = items(), caveat()
        if len(before) < 3:
            fail(f"the reading list shows {len(before)} items", seen)
        seen["feed_before"] = before
        seen["caveat_before"] = caveat_before
        shot(d, a.out, "web-feed-before.png")
        first = d.find_element(By.CSS_SELECTOR, "#items li button.yes")
        first.click()
        wait.until(lambda _: d.find_elements(By.CSS_SELECTOR, ".flash") and caveat() != caveat_before)
        after = items()
        seen["feed_after"] = after
        seen["caveat_after"] = caveat()
        seen["flash"] = d.find_element(By.CSS_SELECTOR, ".flash").text
        if before[0] in after:
            fail("the rated item is still in the unrated list", seen)
        if after == before:
            fail("the order did not change after a rating", seen)
        # The "why" of an item opens in place.
        d.find_element(By.CSS_SELECTOR, "#items li details summary").click()
        seen["why"] = d.find_element(By.CSS_SELECTOR, "#items li details p").text
        shot(d, a.out, "web-feed.png")

        # --- A family: its caveats and the SVG plot.
        d.get(f"{a.base}/ledger/{a.family}?project={a.project}")
        cav = [li.text for li in d.find_elements(By.CSS_SELECTOR, "#caveats li")]
        svg = d.find_elements(By.CSS_SELECTOR, "#plot svg")
        seen["ledger_caveats"] = cav
        seen["ledger_verdict"] = d.find_element(By.ID, "verdict").text
        seen["plot_svgs"] = len(svg)
        if not cav:
            fail("the family page shows no caveat", seen)
        if not svg:
            fail("the family page has no plot", seen)
        seen["plot_error_bars"] = d.execute_script(
            "return document.querySelectorAll('#plot svg line, #plot svg polyline, #plot svg path').length")
        shot(d, a.out, "web-ledger-family.png")

        # --- A run, from the family's table.
        d.find_element(By.CSS_SELECTOR, "#arms a[href^='/runs/']").click()
        wait.until(lambda _: "/runs/" in d.current_url)
        body = d.find_element(By.TAG_NAME, "main").text
        seen["run_url"] = d.current_url.replace(a.base, "")
        for needed in ["Evidence file", "Content hash", "blake3", "Metrics"]:
            if needed not in body:
                fail(f"the run page does not show '{needed}'", seen)

        # --- An unknown run id: the page lists the runs; open the one with a logged curve.
        d.get(f"{a.base}/runs/0")
        logged = [l for l in d.find_elements(By.CSS_SELECTOR, "main a[href^='/runs/']") if "trainlog" in l.text]
        if not logged:
            fail("the unknown-run page does not list the runs", seen)
        logged[0].click()
        wait.until(lambda _: d.find_elements(By.CSS_SELECTOR, "#metrics"))
        seen["curves"] = len(d.find_elements(By.CSS_SELECTOR, ".plot svg"))
        if not seen["curves"]:
            fail("the run with logged steps shows no curve", seen)
        shot(d, a.out, "web-run.png")

        # --- The draft's claims: the contradicted row, first.
        d.get(f"{a.base}/claims?path={a.claims}")
        rows = d.find_elements(By.CSS_SELECTOR, "#verdicts tbody tr")
        if not rows:
            fail("the claims page shows no verdicts", seen)
        seen["first_claim_row"] = rows[0].text
        contradicted = d.find_elements(By.CSS_SELECTOR, "#verdicts tr.v-contradicted")
        if not contradicted:
            fail("no contradicted row on the claims page", seen)
        seen["contradicted"] = [r.text for r in contradicted]
        seen["uncovered_marks"] = len(d.find_elements(By.CSS_SELECTOR, "#draft mark.uncovered"))
        shot(d, a.out, "web-claims.png", max_height=2600)

        # --- The concept graph: click an area's concept, see its neighbours.
        d.get(f"{a.base}/graph")
        if not d.find_elements(By.CSS_SELECTOR, "#graph svg"):
            fail("the graph page has no picture", seen)
        links = d.find_elements(By.CSS_SELECTOR, "aside a[href^='/graph?concept=']")
        if links:
            links[0].click()
            wait.until(lambda _: d.find_elements(By.ID, "concept"))
            seen["concept"] = d.find_element(By.CSS_SELECTOR, "#concept h2").text
        shot(d, a.out, "web-graph.png")

        # --- Unknown reader: a page saying who exists.
        d.get(f"{a.base}/feed/nobody-here")
        seen["unknown_reader"] = d.find_element(By.TAG_NAME, "main").text.splitlines()[:3]
        if a.user not in d.find_element(By.TAG_NAME, "main").text:
            fail("the unknown-reader page does not offer the readers there are", seen)
    finally:
        d.quit()
    print(json.dumps(seen, indent=2))


if __name__ == "__main__":
    main()
