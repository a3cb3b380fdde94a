const Parser = require('rss-parser');
const fs = require('fs');
const { parseHTML } = require('linkedom');
const { Readability } = require('@mozilla/readability');
const chrono = require('chrono-node');
for (const d of ['Sat, Dec 16 2023 02:02:33 PM', 'Tue, 15 Nov 2022 20:15:04 Z', 'Seg, 24 Set 2018 19:42:40 -0300', '20 Nov 2019 08:02 GMT','Fri, 24 Aug 2012 10:00:00 EST']) console.log(d, '->', String(new Date(d)) , chrono.pt.parseDate(d)?.toISOString(), chrono.parseDate(d)?.toISOString());
(async () => {
  const p = new Parser();
  const dir = '../shared/data/upstream/feeds/';
  for (const f of fs.readdirSync(dir)) {
    try { const feed = await p.parseString(fs.readFileSync(dir+f, 'latin1').trim()); const i = feed.items[0]; console.log(f, feed.items.length, i.link, i.isoDate, i.pubDate, (i.contentSnippet||'').slice(0,80)); }
    catch (e) { console.log(f, 'ERR', e.message); }
  }
  const pd = '../shared/data/upstream/pages/';
  for (const f of fs.readdirSync(pd).filter(f=>f.endsWith('.html'))) {
    const t0 = Date.now();
    const { document } = parseHTML(fs.readFileSync(pd+f,'utf8'));
    const a = new Readability(document).parse();
    console.log(f, Date.now()-t0, 'ms', a && a.textContent.length, a && a.publishedTime, a && a.title?.slice(0,60));
  }
})();
