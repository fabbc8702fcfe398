// elk_layout.js - times elkjs's layered layout on the benchmark's graph,
// for the comparison in docs/graph-view.md (not part of the build; elkjs
// is not a dependency of etkit):
//
//   bench_graph_view 1000 --json g.json
//   npm install elkjs@0.12.1 && node elk_layout.js g.json [HIERARCHY]
//
// HIERARCHY is elk.hierarchyHandling (default INCLUDE_CHILDREN: one
// layout of the nested boxes).  Prints the seconds and the drawing's size.
const ELK = require('elkjs/lib/elk.bundled.js');
const g = JSON.parse(require('fs').readFileSync(process.argv[2]));
const hierarchy = process.argv[3] || 'INCLUDE_CHILDREN';
const root = {
  id: 'root',
  layoutOptions: {'elk.algorithm': 'layered', 'elk.direction': 'DOWN',
                  'elk.hierarchyHandling': hierarchy},
  children: [], edges: []};
const groups = g.groups.map((p, i) => ({id: 'g' + i, children: [], edges: []}));
g.groups.forEach((p, i) => (p < 0 ? root : groups[p]).children.push(groups[i]));
g.nodes.forEach((p, i) => (p < 0 ? root : groups[p]).children.push(
    {id: 'n' + i, width: 108, height: 34}));
g.edges.forEach(([a, b], i) => root.edges.push(
    {id: 'e' + i, sources: ['n' + a], targets: ['n' + b]}));
const t0 = Date.now();
new ELK().layout(root).then(
    r => console.log(`elk ${hierarchy} ${(Date.now() - t0) / 1000} s ` +
                     `${r.width.toFixed(0)} x ${r.height.toFixed(0)}`),
    e => console.log('error', e.message));
