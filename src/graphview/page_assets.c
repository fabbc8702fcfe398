/*
 * page_assets.c - the style sheet and the script of a graph view page,
 * as C strings (written once per page by html_page.c).
 *
 * The script needs no library and no network.  It works on every
 * <section class="gv"> of the page (the HTML report embeds one): pan
 * (drag) and zoom (wheel, at the pointer) by one transform on the
 * viewport group; a click on a group's header or on a closed group's
 * cover opens or closes it (class "closed" hides the inside; a large
 * graph's closed top-level groups are filled from their <template> on
 * first opening); the tooltip is built from the node's
 * data-* attributes with textContent (never innerHTML of file text); the search
 * box marks nodes whose name or op type contains the text, opens the groups
 * around them and centres the first.  Everything it reads was written by
 * html_page.c; nothing here knows about ETRecords.
 *
 * Re-layout on open and close (relayout()): the page holds the layout of
 * every group open.  Each box ("unit": the viewport or a group's .gi) is
 * read once into the items' open boxes and its edges' points.  After
 * every change, bottom-up, a closed group takes its closed size
 * (data-cw x GV_CLOSED_H, centred on its open box) and an open one the
 * size of its compacted inside; then in each unit the x and y strips that
 * an open box covered and no box covers now are cut out (squeeze(): a
 * monotone map, the same for boxes and edge points, so items that did not
 * overlap still do not, dot's order and routes stay, and an edge still
 * ends on its box).  With everything open the map is the identity.  Each
 * unit keeps its result until a toggle inside it or below it (dirty()
 * walks up from the toggled group) or a bulk change (open/close all,
 * search: a new generation) invalidates it, so one click re-places only
 * the boxes around the clicked one.
 */
#include "graph_view_internal.h"

/* A geometry constant of the layout as a JavaScript number. */
#define GV_JS_(x) #x
#define GV_JS(x) GV_JS_(x)

const char gv_page_style[] =
    "section.gv{font:13px/1.35 system-ui,-apple-system,'Segoe UI',sans-serif;"
    "color:#1b1f24;margin:0 0 16px}\n"
    ".gv h2{font-size:18px;margin:6px 0 2px}.gv .gv-sub{color:#57606a;"
    "margin:0 0 6px}\n"
    ".gv .gv-note{background:#fff4ce;border:1px solid #e3c55b;padding:4px 8px;"
    "margin:4px 0}\n"
    ".gv-bar{display:flex;flex-wrap:wrap;gap:8px;align-items:center;"
    "margin:4px 0}\n"
    ".gv-bar input{font:inherit;padding:3px 6px;width:260px}\n"
    ".gv-bar button{font:inherit;padding:2px 8px;cursor:pointer}\n"
    ".gv-legend{display:flex;gap:6px;align-items:center;margin-left:auto;"
    "flex-wrap:wrap}\n"
    ".gv-legend .gv-grad{display:inline-block;width:160px;height:12px;"
    "border:1px solid #888}\n"
    ".gv-legend .gv-sw{display:inline-block;width:18px;height:12px;"
    "border:1px solid #888;vertical-align:middle}\n"
    ".gv-legend .gv-sw.noev{background:repeating-linear-gradient(45deg,#eee 0"
    " 3px,#bbb 3px 5px)}\n"
    ".gv-legend .gv-sw.part{border:2px dashed #6f42c1;background:#f5f0ff}\n"
    ".gv-stage{position:relative;height:78vh;min-height:420px;border:1px solid"
    " #d0d7de;background:#fbfcfd;overflow:hidden}\n"
    ".gv-svg{width:100%;height:100%;cursor:grab;user-select:none}\n"
    ".gv-tip{position:absolute;display:none;pointer-events:none;"
    "background:#fff;border:1px solid #8c959f;border-radius:4px;"
    "padding:6px 8px;box-shadow:0 2px 6px rgba(0,0,0,.2);max-width:480px;"
    "white-space:pre-wrap;font-size:12px;z-index:2}\n"
    ".gv-tip b{font-size:13px}\n"
    ".gv .gg>.gb{fill:rgba(90,110,140,.05);stroke:#9aa7b5;stroke-width:1}\n"
    ".gv .gg>.gh{fill:rgba(90,110,140,.13);cursor:pointer}\n"
    ".gv .gg.part>.gb{fill:rgba(111,66,193,.06);stroke:#6f42c1;"
    "stroke-width:2;stroke-dasharray:6 3}\n"
    ".gv .gg.part>.gh{fill:rgba(111,66,193,.18)}\n"
    ".gv .gl{font-size:12px;fill:#24292f;pointer-events:none}\n"
    ".gv .gg.part>.gl{fill:#4b2a8a;font-weight:600}\n"
    ".gv .gc{display:none;fill:#e4e9f0;stroke:#9aa7b5;cursor:pointer}\n"
    ".gv .gg.part>.gc{fill:#ece3fb}\n"
    ".gv .gct{display:none;font-size:12px;fill:#57606a;pointer-events:none}\n"
    ".gv .gg.closed>.gi{display:none}\n"
    ".gv .gg.closed>.gc,.gv .gg.closed>.gct{display:inline}\n"
    ".gv .ge{fill:none;stroke:#8c959f;stroke-width:1.2;"
    "marker-end:url(#gv-arrow)}\n"
    ".gv .gn>rect{stroke:#57606a;stroke-width:1}\n"
    ".gv .gn text{font:12px ui-monospace,Menlo,Consolas,monospace;"
    "pointer-events:none}\n"
    ".gv .gn .nm{font-size:10px;opacity:.75}\n"
    ".gv .gn.hit>rect{stroke:#0969da;stroke-width:3}\n"
    ".gv .gn:hover>rect{stroke:#000;stroke-width:2}\n";

const char gv_page_script[] =
    "(function(){\n"
    "function own(sec){\n"
    " var svg=sec.querySelector('svg.gv-svg'),vp=sec.querySelector('.gv-vp'),"
    "tip=sec.querySelector('.gv-tip'),st=sec.querySelector('.gv-stage');\n"
    " var W=+svg.getAttribute('data-w'),H=+svg.getAttribute('data-h'),"
    "W0=W,H0=H,s=1,tx=0,ty=0,drag=null,moved=false;\n"
    " var PAD=" GV_JS(GV_PAD) ",HEAD=" GV_JS(GV_HEADER) ",CH=" GV_JS(
        GV_CLOSED_H) ";\n"
    " function put(){vp.setAttribute('transform','translate('+tx+','+ty+') "
    "scale('+s+')');}\n"
    /* fit(true): everything in view; fit(false), at opening: in view when
       that keeps the text readable (scale >= 1), else as wide as the
       stage allows at scale 1 at most, from the top; centred either way */
    " function fit(all){var r=svg.getBoundingClientRect(),w=r.width||800,"
    "h=r.height||600,fw=(w-20)/W,fh=(h-20)/H;s=Math.min(fw,fh,1.5);"
    "if(!all&&s<1)s=Math.min(fw,1);"
    "if(!(s>0))s=1;tx=(w-W*s)/2;ty=H*s<h?(h-H*s)/2:10;put();}\n"
    " function centre(n){var r=svg.getBoundingClientRect(),b=n.getBBox(),"
    "m=n.getCTM(),v=vp.getCTM();if(!m||!v)return;"
    "var p=v.inverse().multiply(m);var x=p.e+b.width/2,y=p.f+b.height/2;"
    "if(s<0.6)s=0.6;tx=r.width/2-x*s;ty=r.height/2-y*s;put();}\n"
    " svg.addEventListener('wheel',function(e){e.preventDefault();"
    "var r=svg.getBoundingClientRect(),mx=e.clientX-r.left,my=e.clientY-r.top,"
    "k=Math.exp(-e.deltaY*0.0015),n=Math.max(0.01,Math.min(8,s*k));"
    "tx=mx-(mx-tx)*n/s;ty=my-(my-ty)*n/s;s=n;put();},{passive:false});\n"
    " svg.addEventListener('mousedown',function(e){drag={x:e.clientX,"
    "y:e.clientY,tx:tx,ty:ty};moved=false;});\n"
    " window.addEventListener('mousemove',function(e){if(!drag)return;"
    "var dx=e.clientX-drag.x,dy=e.clientY-drag.y;"
    "if(Math.abs(dx)+Math.abs(dy)>3)moved=true;"
    "tx=drag.tx+dx;ty=drag.ty+dy;put();});\n"
    " window.addEventListener('mouseup',function(){drag=null;});\n"
    " function fill(g){var k=g.getAttribute('data-lazy');if(k===null)return;"
    "var t=sec.querySelector('template.gv-lazy[data-lazy=\"'+k+'\"]');"
    "g.removeAttribute('data-lazy');if(!t)return;"
    "g.insertBefore(document.importNode(t.content.firstChild.firstChild,true),"
    "g.querySelector(':scope>.gc'));t.remove();}\n"
    " function open(g){fill(g);g.classList.remove('closed');}\n"
    " function xy(e){var m=/translate\\(([-\\d.e]+),([-\\d.e]+)\\)/.exec(e.getAttribute('transform')||'');return m?[+m[1],+m[2]]:[0,0];}\n"
    " function unit(inn){if(inn._gv)return inn._gv;var u={it:[],pa:[]};\n"
    "  for(var c=inn.firstElementChild;c;c=c.nextElementSibling){var k=c.classList;\n"
    "   if(k.contains('gn')||k.contains('gg')){var p=xy(c),r=c.querySelector(':scope>rect');\n"
    "    u.it.push({e:c,x:p[0],y:p[1],w:+r.getAttribute('width'),h:+r.getAttribute('height'),g:k.contains('gg')});}\n"
    "   else if(k.contains('ge'))u.pa.push({e:c,d:c.getAttribute('d').match(/[A-Z]|-?[\\d.]+(e[-+]?\\d+)?/g)});}\n"
    "  return inn._gv=u;}\n"
    " function merge(s){s=s.slice().sort(function(a,b){return a[0]-b[0];});var o=[];\n"
    "  s.forEach(function(v){var l=o[o.length-1];if(l&&v[0]<=l[1]){if(v[1]>l[1])l[1]=v[1];}else o.push([v[0],v[1]]);});return o;}\n"
    " function squeeze(was,now){var a=merge(was),b=merge(now),cut=[],j=0;\n"
    "  a.forEach(function(v){var p=v[0];while(j<b.length&&b[j][1]<=p)j++;\n"
    "   for(var k=j;k<b.length&&b[k][0]<v[1];k++){if(b[k][0]>p)cut.push([p,b[k][0]]);if(b[k][1]>p)p=b[k][1];}\n"
    "   if(p<v[1])cut.push([p,v[1]]);});\n"
    "  return function(x){var d=0;for(var i=0;i<cut.length&&cut[i][0]<x;i++)d+=Math.min(x,cut[i][1])-cut[i][0];return x-d;};}\n"
    " function set(e,n,v){v=typeof v==='number'?v.toFixed(1):v;if(e.getAttribute(n)!==v)e.setAttribute(n,v);}\n"
    " function size(t){var g=t.e,cw=Math.min(t.w,+g.getAttribute('data-cw')||t.w);\n"
    "  if(g.classList.contains('closed'))return [cw,Math.min(t.h,CH)];\n"
    "  var inn=g.querySelector(':scope>.gi');if(!inn)return [t.w,t.h];\n"
    "  var s=place(unit(inn),t.w-2*PAD,t.h-HEAD-PAD);return [Math.max(s[0]+2*PAD,cw),s[1]+HEAD+PAD];}\n"
    " function place(u,w0,h0){if(u.gen===gen)return u.sz;"
    "var sz=[],wx=[],wy=[],nx=[],ny=[];\n"
    "  u.it.forEach(function(t,i){var s=t.g?size(t):[t.w,t.h],x=t.x+(t.w-s[0])/2;sz.push(s);\n"
    "   wx.push([t.x,t.x+t.w]);wy.push([t.y,t.y+t.h]);nx.push([x,x+s[0]]);ny.push([t.y,t.y+s[1]]);});\n"
    "  var fx=squeeze(wx,nx),fy=squeeze(wy,ny);\n"
    "  u.it.forEach(function(t,i){var s=sz[i];\n"
    "   set(t.e,'transform','translate('+fx(nx[i][0]).toFixed(1)+','+fy(t.y).toFixed(1)+')');\n"
    "   if(t.g)t.e.querySelectorAll(':scope>.gb,:scope>.gh,:scope>.gc').forEach(function(r){\n"
    "    set(r,'width',s[0]);var k=r.getAttribute('class');\n"
    "    if(k==='gb')set(r,'height',s[1]);else if(k==='gc')set(r,'height',s[1]-HEAD);});});\n"
    "  u.pa.forEach(function(p){var d=p.d,o='';for(var i=0;i<d.length;i++){\n"
    "   if(/[A-Z]/.test(d[i])){o+=d[i];continue;}\n"
    "   if(o&&!/[A-Z]$/.test(o))o+=' ';o+=fx(+d[i]).toFixed(1)+' '+fy(+d[++i]).toFixed(1);}\n"
    "   set(p.e,'d',o);});\n"
    "  u.gen=gen;return u.sz=[fx(w0),fy(h0)];}\n"
    " var gen=1;function dirty(e){for(;e&&e!==svg;e=e.parentNode)"
    "if(e._gv)e._gv.gen=0;}\n"
    " function relayout(all){if(all)gen++;"
    "var s=place(unit(vp),W0,H0);W=s[0];H=s[1];}\n"

    " svg.addEventListener('click',function(e){if(moved)return;"
    "var t=e.target.closest('.gh,.gc');if(!t)return;var g=t.parentNode;"
    "if(g.classList.contains('closed'))open(g);"
    "else g.classList.add('closed');dirty(g);relayout();});\n"
    " function line(b,k,v){if(!v)return;var d=document.createElement('div');"
    "if(k){var i=document.createElement('span');i.style.color='#57606a';"
    "i.textContent=k+' ';d.appendChild(i);}"
    "d.appendChild(document.createTextNode(v));b.appendChild(d);}\n"
    " svg.addEventListener('mouseover',function(e){"
    "var n=e.target.closest('.gn');if(!n){tip.style.display='none';return;}"
    "var a=n.dataset;tip.textContent='';var h=document.createElement('b');"
    "h.textContent=a.op||'';tip.appendChild(h);line(tip,'node',a.node);"
    "line(tip,'module',a.module);line(tip,'source',a.src);"
    "line(tip,'shape',a.shape);(a.args||'').split(' | ').forEach("
    "function(x){line(tip,'',x);});"
    "if(a.fa!==undefined||a.fb!==undefined){line(tip,sec.dataset.la+':',"
    "a.fa||sec.dataset.missing);line(tip,sec.dataset.lb+':',"
    "a.fb||sec.dataset.missing);}if(sec.dataset.vname)"
    "line(tip,sec.dataset.vname+':',a.fmt||sec.dataset.missing);"
    "(a.fig||'').split(' | "
    "').forEach(function(x){line(tip,'',x);});tip.style.display='block';});\n"
    " svg.addEventListener('mousemove',function(e){"
    "if(tip.style.display!=='block')return;var r=st.getBoundingClientRect(),"
    "x=e.clientX-r.left+14,y=e.clientY-r.top+14;"
    "if(x+tip.offsetWidth>r.width)x=Math.max(0,x-tip.offsetWidth-28);"
    "if(y+tip.offsetHeight>r.height)y=Math.max(0,y-tip.offsetHeight-28);"
    "tip.style.left=x+'px';tip.style.top=y+'px';});\n"
    " svg.addEventListener('mouseleave',function(){tip.style.display='none';});"
    "\n"
    " var q=sec.querySelector('.gv-q'),cnt=sec.querySelector('.gv-count');\n"
    " function find(){var t=q.value.trim().toLowerCase(),first=null,k=0;"
    "sec.querySelectorAll('.gn.hit').forEach(function(n){"
    "n.classList.remove('hit');});"
    "if(t){sec.querySelectorAll('template.gv-lazy').forEach(function(m){"
    "var hit=false;m.content.querySelectorAll('.gn').forEach(function(n){"
    "var a=n.dataset;if(a.node.toLowerCase().indexOf(t)>=0||"
    "(a.op||'').toLowerCase().indexOf(t)>=0)hit=true;});if(hit){"
    "var g=vp.querySelector('.gg[data-lazy=\"'+m.getAttribute('data-lazy')+"
    "'\"]');if(g)fill(g);}});"
    "sec.querySelectorAll('.gv-vp .gn').forEach(function(n){"
    "var a=n.dataset;if(a.node.toLowerCase().indexOf(t)<0&&"
    "(a.op||'').toLowerCase().indexOf(t)<0)return;n.classList.add('hit');k++;"
    "for(var p=n.parentNode;p&&p!==vp;p=p.parentNode)"
    "if(p.classList&&p.classList.contains('gg'))p.classList.remove('closed');"
    "if(!first)first=n;});}"
    "cnt.textContent=t?k+' found':'';relayout(1);if(first)centre(first);}\n"
    " q.addEventListener('input',find);\n"
    " sec.querySelector('.gv-bar').addEventListener('click',function(e){"
    "var b=e.target.closest('button');if(!b)return;var a=b.dataset.act;"
    "if(a==='fit')fit(true);else sec.querySelectorAll('.gv-vp .gg')"
    ".forEach(function(g){if(a==='close')g.classList.add('closed');"
    "else open(g);});if(a!=='fit')relayout(1);});\n"
    " if(sec.querySelector('.gv-vp .gg.closed'))relayout();\n"
    "fit(false);"
    "sec.setAttribute('data-ready','1');\n"
    "}\n"
    "document.querySelectorAll('section.gv').forEach(own);\n"
    "})();\n";
