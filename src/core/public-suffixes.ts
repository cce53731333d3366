/**
 * Second-level public suffixes under country-code and generic TLDs (`co.uk`,
 * `com.au`, `gov.br`, …): the part of the Public Suffix List that {@link registrableDomain}
 * (site.ts) needs, and nothing it does not.
 *
 * Source: the Public Suffix List, https://publicsuffix.org/list/public_suffix_list.dat
 * (the copy shipped by Debian's `publicsuffix` package, version 20230209.2326), ICANN
 * section only. Kept: every two-label rule whose first label is one of the forty labels
 * used as a second level under at least five TLDs (ac, co, com, edu, gov, net, org, …),
 * 1,167 rules; and the TLDs that have a wildcard rule (`*.ck`) with their exceptions.
 * Left out, deliberately: the private section (github.io, workers.dev, … hand out free
 * subdomains, so they must count as one site), internationalised rules, and the
 * geographic and sectoral suffixes (`aichi.jp`, `oslo.no`, `k12.ca.us`): a suffix left
 * out only makes its registrants share one site (more grouping, never a free site).
 *
 * License of this data: Mozilla Public License 2.0 (https://mozilla.org/MPL/2.0/), as the
 * list itself. This file is a derived, reformatted subset: one string per TLD group,
 * `tld:label,label,…` separated by `;`.
 */
export const SECOND_LEVEL_SUFFIXES: readonly string[] = [
  'ac:com,edu,gov,mil,net,org;ad:nom;ae:ac,co,gov,mil,net,org,sch;aero:press;af:com,edu,gov,net,org;ag:co,com,net,nom,org;ai:com,net,org;',
  'al:com,edu,gov,mil,net,org;am:co,com,net,org;ao:co,ed;ar:com,coop,edu,gob,gov,int,mil,net,org;as:gov;at:ac,co,or;au:com,edu,gov,id,info,net,org;aw:com;',
  'az:biz,com,edu,gov,info,int,mil,name,net,org,pro;ba:com,edu,gov,mil,net,org;bb:biz,co,com,edu,gov,info,net,org,store,tv;be:ac;bf:gov;',
  'bh:com,edu,gov,net,org;bi:co,com,edu,or,org;bj:co,com,edu,info,net,org;bm:com,edu,gov,net,org;bn:com,edu,gov,net,org;',
  'bo:com,edu,gob,info,int,mil,net,org,tv,web;br:art,com,coop,edu,gov,ind,med,mil,net,org,pro,rec,tv;bs:com,edu,gov,net,org;bt:com,edu,gov,net,org;',
  'bw:co,org;by:com,gov,mil;bz:com,edu,gov,net,org;cd:gov;ci:ac,asso,co,com,ed,edu,go,gouv,int,net,or,org;cl:co,gob,gov,mil;cm:co,com,gov,net;',
  'cn:ac,com,edu,gov,mil,net,org,sc;co:arts,com,edu,firm,gov,info,int,mil,net,nom,org,rec,web;cr:ac,co,ed,go,or;cu:com,edu,gov,net,org;cv:com,edu,int,org;',
  'cw:com,edu,net,org;cx:gov;cy:ac,biz,com,gov,mil,net,org,press,pro,tm;dm:com,edu,gov,net,org;do:art,com,edu,gob,gov,mil,net,org,web;',
  'dz:art,asso,com,edu,gov,net,org,tm;ec:com,edu,gob,gov,info,med,mil,net,org,pro;ee:com,edu,gov,med,org;eg:com,edu,gov,mil,name,net,org;',
  'es:com,edu,gob,nom,org;et:biz,com,edu,gov,info,name,net,org;fj:ac,biz,com,gov,info,mil,name,net,org,pro;fm:com,edu,net,org;fr:asso,com,gouv,nom,tm;',
  'gd:edu,gov;ge:com,edu,gov,mil,net,org;gg:co,net,org;gh:com,edu,gov,mil,org;gi:com,edu,gov,org;gl:co,com,edu,net,org;gn:ac,com,edu,gov,net,org;',
  'gp:asso,com,edu,mobi,net,org;gr:com,edu,gov,net,org;gt:com,edu,gob,ind,mil,net,org;gu:com,edu,gov,info,net,org,web;gy:co,com,edu,gov,net,org;',
  'hk:com,edu,gov,net,org;hn:com,edu,gob,mil,net,org;hr:com,name;ht:art,asso,com,coop,edu,firm,gouv,info,med,net,org,pro;hu:co,info,org,tm;',
  'id:ac,biz,co,go,mil,net,or,sch,web;ie:gov;il:ac,co,gov,net,org;im:ac,co,com,net,org,tv;',
  'in:ac,biz,co,com,coop,edu,firm,gov,ind,info,int,me,mil,net,org,pro,tv;io:com;iq:com,edu,gov,mil,net,org;ir:ac,co,gov,id,net,org,sch;',
  'is:com,edu,gov,int,net,org;it:co,edu,go,gov,me,or,tv;je:co,net,org;jo:com,edu,gov,mil,name,net,org,sch;jp:ac,co,ed,go,ne,or;',
  'ke:ac,co,go,info,me,mobi,ne,or,sc;kg:com,edu,gov,mil,net,org;ki:biz,com,edu,gov,info,net,org;km:asso,com,coop,edu,gouv,gov,mil,nom,org,tm;',
  'kn:edu,gov,net,org;kp:com,edu,gov,org;kr:ac,co,go,mil,ne,or,sc;kw:com,edu,gov,ind,net,org;ky:com,edu,net,org;kz:com,edu,gov,mil,net,org;',
  'la:com,edu,gov,info,int,net,org;lb:com,edu,gov,net,org;lc:co,com,edu,gov,net,org;lk:ac,com,edu,gov,int,net,org,sch,web;lr:com,edu,gov,net,org;',
  'ls:ac,biz,co,edu,gov,info,net,org,sc;lt:gov;lv:com,edu,gov,id,mil,net,org;ly:com,edu,gov,id,med,net,org,sch;ma:ac,co,gov,net,org,press;mc:asso,tm;',
  'me:ac,co,edu,gov,net,org;mg:co,com,edu,gov,mil,nom,org,tm;mk:com,edu,gov,name,net,org;ml:com,edu,gouv,gov,net,org;mn:edu,gov,org;',
  'mo:com,edu,gov,net,org;mr:gov;ms:com,edu,gov,net,org;mt:com,edu,net,org;mu:ac,co,com,gov,net,or,org;museum:art,arts,press;',
  'mv:biz,com,coop,edu,gov,info,int,mil,museum,name,net,org,pro;mw:ac,biz,co,com,coop,edu,gov,int,museum,net,org;mx:com,edu,gob,net,org;',
  'my:biz,com,edu,gov,mil,name,net,org;mz:ac,co,edu,gov,mil,net,org;na:co,com,in,info,mobi,name,or,org,pro,tv;nc:asso,nom;',
  'nf:arts,com,firm,info,net,rec,store,web;ng:com,edu,gov,mil,mobi,name,net,org,sch;ni:ac,biz,co,com,edu,gob,in,info,int,mil,net,nom,org,web;',
  'no:mil,museum,tm;nr:biz,com,edu,gov,info,net,org;nz:ac,co,mil,net,org;om:co,com,edu,gov,med,museum,net,org,pro;pa:ac,com,edu,gob,med,net,nom,org;',
  'pe:com,edu,gob,mil,net,nom,org;pf:com,edu,org;ph:com,edu,gov,mil,net,org;pk:biz,com,edu,gob,gov,info,net,org,web;',
  'pl:biz,com,edu,gov,info,mil,net,nom,org,tm;pn:co,edu,gov,net,org;pr:ac,biz,com,edu,gov,info,name,net,org,pro;pro:med;ps:com,edu,gov,net,org;',
  'pt:com,edu,gov,int,net,org;pw:co,ed,go,ne,or;py:com,coop,edu,gov,mil,net,org;qa:com,edu,gov,mil,name,net,org,sch;re:asso,com,nom;',
  'ro:arts,com,firm,info,nom,org,rec,store,tm;rs:ac,co,edu,gov,in,org;rw:ac,co,coop,gov,mil,net,org;sa:com,edu,gov,med,net,org,sch;sb:com,edu,gov,net,org;',
  'sc:com,edu,gov,net,org;sd:com,edu,gov,info,med,net,org,tv;se:ac,org,press,tm;sg:com,edu,gov,net,org;sh:com,gov,mil,net,org;sl:com,edu,gov,net,org;',
  'sn:art,com,edu,gouv,org;so:com,edu,gov,me,net,org;ss:biz,com,edu,gov,me,net,org,sch;st:co,com,edu,mil,net,org,store;sv:com,edu,gob,org;sx:gov;',
  'sy:com,edu,gov,mil,net,org;sz:ac,co,org;th:ac,co,go,in,net,or;tj:ac,biz,co,com,edu,go,gov,int,mil,name,net,org,web;tl:gov;',
  'tm:co,com,edu,gov,mil,net,nom,org;tn:com,gov,ind,info,net,org;to:com,edu,gov,mil,net,org;tr:biz,com,edu,gov,info,mil,name,net,org,tv,web;',
  'tt:biz,co,com,coop,edu,gov,info,int,mobi,museum,name,net,org,pro;tw:com,edu,gov,mil,net,org;tz:ac,co,go,info,me,mil,mobi,ne,or,sc,tv;',
  'ua:com,edu,gov,in,net,org;ug:ac,co,com,go,ne,or,org,sc;uk:ac,co,gov,me,net,org;us:co,id,in,me,ne,or,sc;uy:com,edu,mil,net,org;uz:co,com,net,org;',
  'vc:com,edu,gov,mil,net,org;ve:arts,co,com,edu,firm,gob,gov,info,int,mil,net,nom,org,rec,store,web;vi:co,com,net,org;',
  'vn:ac,biz,com,edu,gov,info,int,name,net,org,pro;vu:com,edu,net,org;ws:com,edu,gov,net,org;ye:com,edu,gov,mil,net,org;',
  'za:ac,co,edu,gov,mil,net,nom,org,tm,web;zm:ac,biz,co,com,edu,gov,info,mil,net,org,sch;zw:ac,co,gov,mil,org',
];

/** TLDs whose every second-level name is a public suffix (`*.tld` rules). */
export const WILDCARD_TLDS: readonly string[] = ['bd', 'ck', 'er', 'fk', 'jm', 'kh', 'mm', 'np', 'pg'];

/** Exceptions to the wildcard rules that apply to the kept TLDs (`!www.ck`): registrable as they are. */
export const WILDCARD_EXCEPTIONS: readonly string[] = ['www.ck'];
