// Injected by check_store_demo.cmake into a copy of `etkit store report`'s
// page: describes every SVG plot in the title as
// "series:dots:overlaps:unit:xtitle", read back with --dump-dom.
(function () {
  var out = [];
  document.querySelectorAll('svg').forEach(function (svg) {
    var texts = [].slice.call(svg.querySelectorAll('text'));
    var legend = texts.filter(function (t) { return +t.getAttribute('y') < 24; });
    var overlaps = 0;
    for (var i = 1; i < legend.length; i++) {
      var a = legend[i - 1].getBBox(), b = legend[i].getBBox();
      if (a.x + a.width + 4 > b.x) overlaps++;
    }
    var has = function (re) {
      return texts.some(function (t) { return re.test(t.textContent); }) ? 1 : 0;
    };
    out.push([svg.querySelectorAll('polyline.series').length,
              svg.querySelectorAll('circle').length, overlaps,
              has(/[(]ms[)]/), has(/run id|execution/)].join(':'));
  });
  document.title = 'S' + out.join(',');
})();
