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
  expect(dup === 0, dup + ' node names written twice');
  // legend: a gradient with numbers at both ends
  var lg = sec.querySelector('.gv-legend');
  var vname = sec.dataset.vname;
  if (vname) {
    expect(sec.querySelector('.gv-legend .gv-grad'), 'no legend gradient');
    var lo = sec.querySelector('.gv-lo'), hi = sec.querySelector('.gv-hi');
    expect(lo && /\d/.test(lo.textContent) && hi && /\d/.test(hi.textContent),
           'legend ends without numbers');
  }
  // collapse / expand: a closed group opens on a click of its cover and
  // closes on a click of its header
  var closed = sec.querySelectorAll('.gg.closed').length;
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
