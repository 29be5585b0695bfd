# Sourced by bin/test: the Mini App's browser tests (tests/e2e/test_miniapp.py) drive
# Debian's chromium through Debian's chromium-driver (no browser download).  Installed
# here when missing, as root only; elsewhere the browser tests are skipped and say why.
# The emoji font: the screenshots in docs/ show the emoji the phone shows, not boxes.
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "installing chromium and chromium-driver (the Mini App's browser tests)" >&2
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
            chromium chromium-driver fonts-noto-color-emoji >/dev/null
    else
        echo "chromium/chromedriver missing and not root: the browser tests will be skipped" >&2
    fi
fi
