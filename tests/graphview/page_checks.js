// page_checks.js - appended to a graph view page by
// check_graph_view_browser.cmake; runs after the page's own script and
// writes its verdict into document.title ("GVTEST ok ..." or
// "GVTEST FAIL: ..."), which --dump-dom prints.
(function () {
  var fail = [];
  function expect(c, what) { if (!c) fail.push(what); }
  var t0 = performance.now();
  var sec = document.querySelector('section.gv');
  expect(sec && sec.getAttribute('data-ready') === '1', 'the page script did not run');
  // every node once: in the SVG, or in the template of a closed group of
  // a large graph (built when the group opens)
  var want = +sec.getAttribute('data-nodes');
  var seen = {}, dup = 0, total = 0;
  function tally(n) { var k = n.dataset.node; if (seen[k]) dup++; seen[k] = 1; total++; }
  sec.querySelectorAll('.gv-vp .gn').forEach(tally);
  var lazy = sec.querySelectorAll('template.gv-lazy');
  lazy.forEach(function (t) { t.content.querySelectorAll('.gn').forEach(tally); });
  expect(total === want, 'written nodes ' + total + ' != ' + want);
  // a box too large for dot is said to be laid out in plain rows, and
  // its nodes do not overlap
  if (sec.querySelector('.gv-plain')) {
    var rows = {}, clash = 0;
    sec.querySelectorAll('.gv-vp > .gn').forEach(function (n) {
      var m = /translate\(([-\d.]+),([-\d.]+)\)/.exec(n.getAttribute('transform'));
      var key = m[2];
      (rows[key] = rows[key] || []).push([+m[1], +n.querySelector('rect').getAttribute('width')]);
    });
    Object.keys(rows).forEach(function (k) {
      var r = rows[k].sort(function (a, b) { return a[0] - b[0]; });
      for (var i = 1; i < r.length; i++) if (r[i][0] < r[i - 1][0] + r[i - 1][1]) clash++;
    });
    expect(clash === 0, clash + ' overlapping nodes in the plain layout');
  }
  // a small graph opens readable (node text at least 11 px on screen)
  // and centred in the stage
  var svgEl = sec.querySelector('.gv-svg'), vpEl = sec.querySelector('.gv-vp');
  var first = sec.querySelector('.gv-vp .gn text');
  if (want <= 60 && first) {
    var px = first.getBoundingClientRect().height;
    expect(px >= 11, 'node text drawn ' + px.toFixed(1) + ' px high');
    var sr = svgEl.getBoundingClientRect(), dr = vpEl.getBoundingClientRect();
    var left = dr.left - sr.left, right = sr.right - dr.right;
    expect(Math.abs(left - right) <= 2 || dr.width > sr.width,
           'drawing not centred: ' + Math.round(left) + ' px left, ' + Math.round(right) + ' right');
  }
  expect(dup === 0, dup + ' node names written twice');
  // legend: a gradient with numbers at both ends
  var lg = sec.querySelector('.gv-legend');
  var vname = sec.dataset.vname;
  if (vname) {
    // a gradient with numbers at both ends, or one of the two states
    // without a scale: every value equal, or no significant change (A/B)
    var eq = sec.querySelector('.gv-eq'), rule = sec.querySelector('.gv-rule');
    var noChange = rule && /no significant change/.test(rule.textContent);
    expect(sec.querySelector('.gv-legend .gv-grad') || eq, 'no legend gradient');
    var lo = sec.querySelector('.gv-lo'), hi = sec.querySelector('.gv-hi');
    expect(eq ? /all equal/.test(eq.textContent) :
           noChange || (lo && /\d/.test(lo.textContent) && hi && /\d/.test(hi.textContent)),
           'legend ends without numbers');
    // A/B: only significant changes are coloured
    sec.querySelectorAll('.gn.ns').forEach(function (n) {
      var f = n.querySelector('rect').getAttribute('fill');
      expect(f === '#f7f7f7', n.dataset.node + ': not significant but filled ' + f);
    });
    if (noChange)
      expect(!sec.querySelector('.gn[data-value]:not(.ns)'), 'no significant change, yet coloured');
    // graph inputs and outputs are never "no event"
    sec.querySelectorAll('.gn.io').forEach(function (n) {
      expect(n.querySelector('rect').getAttribute('fill').indexOf('hatch') < 0,
             n.dataset.node + ': an input drawn as no event');
    });
  }
  // a group closed at load is drawn at its closed size, not its open one
  var closed = sec.querySelectorAll('.gg.closed').length;
  sec.querySelectorAll('.gv-vp .gg.closed').forEach(function (c) {
    expect(+c.querySelector(':scope > .gb').getAttribute('height') <= 50,
           'a group closed at load keeps its open height');
  });
  // collapse / expand: a closed group opens on a click of its cover and
  // closes on a click of its header
  var g = sec.querySelector('.gg.closed');
  var opened = 'none closed';
  if (g) {
    var before = g.querySelectorAll('.gn').length;
    g.querySelector(':scope > .gc').dispatchEvent(new MouseEvent('click', {bubbles: true}));
    var isOpen = !g.classList.contains('closed') && g.querySelectorAll('.gn').length > 0;
    if (lazy.length) expect(before === 0, 'a lazy group held nodes before opening');
    g.querySelector(':scope > .gh').dispatchEvent(new MouseEvent('click', {bubbles: true}));
    expect(isOpen && g.classList.contains('closed'), 'a group did not open and close');
    opened = 'toggled';
  }
  // search reaches into a closed group that was never opened
  var q = sec.querySelector('.gv-q');
  var left = sec.querySelectorAll('template.gv-lazy');
  if (left.length) {
    var last = left[left.length - 1];
    var name = last.content.querySelector('.gn').dataset.node;
    q.value = name;
    q.dispatchEvent(new Event('input'));
    var found = sec.querySelector('.gv-vp .gn.hit[data-node="' + CSS.escape(name) + '"]');
    expect(found && !last.isConnected, 'search did not reach a closed group');
    q.value = '';
    q.dispatchEvent(new Event('input'));
  }
  // open everything: every node then has a box on screen
  sec.querySelector('button[data-act=open]').click();
  expect(sec.querySelectorAll('.gg.closed').length === 0, 'open all left groups closed');
  expect(sec.querySelectorAll('template.gv-lazy').length === 0, 'open all left templates');
  var nodes = sec.querySelectorAll('.gv-vp .gn');
  expect(nodes.length === want, 'drawn nodes ' + nodes.length + ' != ' + want);
  var empty = 0;
  nodes.forEach(function (n) { var b = n.getBoundingClientRect(); if (!(b.width > 0 && b.height > 0)) empty++; });
  expect(empty === 0, empty + ' nodes have no box after open all');
  // closing a group shrinks it: its box becomes its header and cover, what
  // lay below it in its parent box moves up, the whole drawing gets
  // shorter, nothing of the parent box overlaps; opening it restores all
  var vp = sec.querySelector('.gv-vp');
  function rectOf(e) { return e.querySelector(':scope > rect').getBoundingClientRect(); }
  function items(inn) {
    var out = [];
    for (var c = inn.firstElementChild; c; c = c.nextElementSibling)
      if (c.classList.contains('gn') || c.classList.contains('gg')) out.push(c);
    return out;
  }
  function overlapping(inn) {
    var r = items(inn).map(rectOf), bad = 0;
    for (var i = 0; i < r.length; i++)
      for (var j = i + 1; j < r.length; j++)
        if (r[i].left < r[j].right - 0.5 && r[j].left < r[i].right - 0.5 &&
            r[i].top < r[j].bottom - 0.5 && r[j].top < r[i].bottom - 0.5) bad++;
    return bad;
  }
  // every edge of a box ends on one of the box's items (its tip is the
  // last point of the path, in the box's own frame)
  function loose(inn) {
    var boxes = items(inn).map(function (c) {
      var m = /translate\(([-\d.e]+),([-\d.e]+)\)/.exec(c.getAttribute('transform'));
      var r = c.querySelector(':scope > rect');
      return [+m[1], +m[2], +r.getAttribute('width'), +r.getAttribute('height')];
    }), bad = 0;
    for (var c = inn.firstElementChild; c; c = c.nextElementSibling) {
      if (!c.classList.contains('ge')) continue;
      var v = c.getAttribute('d').match(/-?[\d.]+/g), x = +v[v.length - 2], y = +v[v.length - 1];
      if (!boxes.some(function (b) { return x >= b[0] - 2 && x <= b[0] + b[2] + 2 && y >= b[1] - 2 && y <= b[1] + b[3] + 2; })) bad++;
    }
    return bad;
  }
  var tall = null;
  sec.querySelectorAll('.gv-vp .gg').forEach(function (c) {
    var h = +c.querySelector(':scope > .gb').getAttribute('height');
    if (h > 60 && (!tall || h > tall.h)) tall = {g: c, h: h};
  });
  if (tall) {
    var g2 = tall.g, parent = g2.parentNode, gb = g2.querySelector(':scope > .gb');
    var r0 = rectOf(g2), below = [];
    items(parent).forEach(function (c) { var r = rectOf(c); if (c !== g2 && r.top >= r0.bottom - 0.5) below.push([c, r.top]); });
    var h0 = vp.getBBox().height, w0 = gb.getAttribute('width');
    expect(loose(parent) === 0, loose(parent) + ' edges end beside their boxes in the open layout');
    g2.querySelector(':scope > .gh').dispatchEvent(new MouseEvent('click', {bubbles: true}));
    expect(+gb.getAttribute('height') === 50, 'a closed group keeps its open height ' + gb.getAttribute('height'));
    expect(+gb.getAttribute('width') <= +w0, 'a closed group grew wider');
    expect(vp.getBBox().height < h0 - 1, 'closing a group left the drawing as tall');
    var up = 0;
    below.forEach(function (b) { if (rectOf(b[0]).top < b[1] - 0.5) up++; });
    expect(up === below.length, (below.length - up) + ' of ' + below.length + ' boxes below a closed group did not move up');
    expect(loose(parent) === 0, loose(parent) + ' edges end beside the boxes around a closed group');
    expect(overlapping(parent) === 0, 'boxes overlap around a closed group');
    expect(overlapping(vp) === 0, 'top-level boxes overlap after a close');
    g2.querySelector(':scope > .gc').dispatchEvent(new MouseEvent('click', {bubbles: true}));
    expect(+gb.getAttribute('height') === tall.h && gb.getAttribute('width') === w0,
           'a reopened group did not get its open size back');
    expect(Math.abs(vp.getBBox().height - h0) < 1, 'reopening did not restore the drawing');
    opened += ' shrunk=' + Math.round(tall.h) + '->50';
  }
  // close all: the top-level boxes shrink and never overlap
  sec.querySelector('button[data-act=close]').click();
  expect(overlapping(vp) === 0, 'top-level boxes overlap after close all');
  sec.querySelector('button[data-act=open]').click();
  // tooltips
  var tip = sec.querySelector('.gv-tip');
  function hover(n) {
    n.querySelector('rect').dispatchEvent(new MouseEvent('mouseover', {bubbles: true}));
    return tip.style.display === 'block' ? tip.textContent : '';
  }
  var valued = sec.querySelector('.gn[data-value]');
  if (vname) {
    expect(valued, 'no node has a value');
    if (valued) {
      var text = hover(valued);
      expect(text.indexOf(valued.dataset.node) >= 0, 'tooltip lacks the node name');
      expect(text.indexOf(valued.dataset.op) >= 0, 'tooltip lacks the op');
      expect(text.indexOf(valued.dataset.fmt) >= 0, 'tooltip lacks the value');
      if (valued.dataset.fa !== undefined)
        expect(text.indexOf(valued.dataset.fa) >= 0 && text.indexOf(valued.dataset.fb) >= 0,
               'against tooltip lacks A and B');
    }
    var nv = sec.querySelector('.gn.nv');
    if (nv) expect(hover(nv).indexOf(sec.dataset.missing) >= 0, 'no-event tooltip');
    if (nv) expect(!nv.hasAttribute('data-value'), 'a no-event node has a value');
  } else {
    expect(!valued, 'an uncoloured graph has values');
    expect(hover(nodes[0]).indexOf(nodes[0].dataset.node) >= 0, 'tooltip lacks the node name');
  }
  // search
  var op = nodes[nodes.length - 1].dataset.op;
  var term = op.split('.').length > 1 ? op.split('.')[1] : op;
  q.value = term;
  q.dispatchEvent(new Event('input'));
  var hits = sec.querySelectorAll('.gn.hit').length, match = 0;
  nodes.forEach(function (n) {
    if (n.dataset.node.toLowerCase().indexOf(term.toLowerCase()) >= 0 ||
        (n.dataset.op || '').toLowerCase().indexOf(term.toLowerCase()) >= 0) match++;
  });
  expect(hits > 0 && hits === match, 'search found ' + hits + ' of ' + match);
  var values = [];
  nodes.forEach(function (n) { if (n.dataset.value !== undefined) values.push(n.dataset.node + '=' + n.dataset.value); });
  document.title = fail.length ? 'GVTEST FAIL: ' + fail.join('; ')
    : 'GVTEST ok nodes=' + nodes.length + ' closed=' + closed + ' lazy=' + lazy.length +
      ' ' + opened +
      ' values=' + values.length + ' ready_ms=' + Math.round(t0) +
      ' checks_ms=' + Math.round(performance.now() - t0);
  var pre = document.createElement('pre');
  pre.id = 'gvtest-values';
  pre.textContent = values.join('\n');
  document.body.appendChild(pre);
})();
