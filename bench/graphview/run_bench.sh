#!/bin/sh
# run_bench.sh [BUILD_DIR] [NODES...]: the graph view's figures for
# docs/graph-view.md.  For each size: a generated transformer-like ETRecord
# (bench_graph_etrecord), `etkit graph ETRECORD --html` wall time and peak
# RSS (/usr/bin/time), the page size, and the time to interactive in
# headless Chromium (a copy of the page whose last script puts
# performance.now() into the title: the page's own script has then laid
# out the view), and after "open all" the time to close one nested box
# and to open it again (the page's re-layout).  Prints "<name> <value>
# <unit>" lines; never fails on a figure.
set -eu
build=${1:-build}
[ $# -gt 0 ] && shift
sizes=${*:-"200 1000 5000 20000"}
etkit=$build/src/cli/etkit
gen=$build/bench/graphview/bench_graph_etrecord
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for n in $sizes; do
  "$gen" "$n" "$tmp/g$n.etrecord"
  /usr/bin/time -f "%e %M" -o "$tmp/time$n" "$etkit" graph "$tmp/g$n.etrecord" \
    --html "$tmp/g$n.html"
  read -r secs kb < "$tmp/time$n"
  echo "graph_html_${n}_seconds $secs s"
  echo "graph_html_${n}_peak_rss $((kb / 1024)) MB"
  echo "graph_html_${n}_page_bytes $(wc -c < "$tmp/g$n.html") bytes"
  if [ -n "$browser" ]; then
    sed 's|</body>|<script>document.title="TTI "+Math.round(performance.now())</script></body>|' \
      "$tmp/g$n.html" > "$tmp/tti$n.html"
    tti=$("$browser" --headless --no-sandbox --disable-gpu --disable-quic \
      --no-first-run --disable-background-networking --disable-component-update \
      --disable-sync --window-size=1400,900 --user-data-dir="$tmp/profile$n" \
      --dump-dom "file://$tmp/tti$n.html" 2>/dev/null |
      sed -n 's|.*<title>TTI \([0-9]*\)</title>.*|\1|p')
    echo "graph_html_${n}_time_to_interactive ${tti:-?} ms"
    # one box closed and opened again after "open all": the re-layout of
    # the boxes around it plus the browser's own style and layout
    sed 's|</body>|<script>var s=document.querySelector("section.gv");s.querySelector("button[data-act=open]").click();var g=s.querySelector(".gv-vp .gg .gg"),c=function(e){g.querySelector(":scope>"+e).dispatchEvent(new MouseEvent("click",{bubbles:true}));document.body.getBoundingClientRect();};document.body.getBoundingClientRect();var t0=performance.now();c(".gh");var t1=performance.now();c(".gc");document.title="TOG "+Math.round(t1-t0)+" "+Math.round(performance.now()-t1)</script></body>|' \
      "$tmp/g$n.html" > "$tmp/tog$n.html"
    tog=$("$browser" --headless --no-sandbox --disable-gpu --disable-quic \
      --no-first-run --disable-background-networking --disable-component-update \
      --disable-sync --window-size=1400,900 --user-data-dir="$tmp/profile$n" \
      --dump-dom "file://$tmp/tog$n.html" 2>/dev/null |
      sed -n 's|.*<title>TOG \([0-9]*\) \([0-9]*\)</title>.*|\1 \2|p')
    echo "graph_html_${n}_close_one_box ${tog%% *} ms"
    echo "graph_html_${n}_open_it_again ${tog##* } ms"
  fi
done
