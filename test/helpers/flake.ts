// What the replay tests share: a GitHub Actions run as its variables describe
// it (replay reads the provider and the run from them), and a pytest case
// that misses its deadline every other run, a timing flake with no input.

/** The variables of a GitHub Actions run: its URL is https://github.com/acme/shop/actions/runs/4242. */
export const GITHUB_RUN = {
  GITHUB_ACTIONS: 'true',
  GITHUB_RUN_ID: '4242',
  GITHUB_SERVER_URL: 'https://github.com',
  GITHUB_REPOSITORY: 'acme/shop',
  GITHUB_RUN_ATTEMPT: '1',
};

/** `test_deadline`: every other run the step is slow and misses its deadline; it counts its runs in deadline.count beside it. */
export const DEADLINE_FLAKE = `import pathlib
import time

COUNT = pathlib.Path(__file__).parent / "deadline.count"


def test_deadline():
    n = int(COUNT.read_text()) if COUNT.exists() else 0
    COUNT.write_text(str(n + 1))
    start = time.monotonic()
    time.sleep(0.3 if n % 2 else 0.0)
    assert time.monotonic() - start < 0.2, "the step ran past its deadline"
`;
