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
 * list itself. This file is a derived, reformatted subset, grouped by the set of second
 * levels a TLD has (many TLDs have the same, `com,edu,gov,net,org`): groups
 * `label,label,…:tld,tld,…` separated by `;`, each label under each TLD of its group
 * being one rule. The strings are only split for line length.
 */
export const SECOND_LEVEL_SUFFIXES: readonly string[] = [
  'com,edu,gov,net,org:af,bh,bm,bn,bs,bt,bz,cu,dm,gr,hk,lb,lr,mo,ms,ps,sb,sc,sg,sl,ws;com,edu,gov,mil,net,org:ac,al,ba,ge,iq,kg,kz,ph,sy,to,tw,vc,ye',
  'gov:as,bf,cd,cx,ie,lt,mr,sx,tl;com,edu,net,org:cw,fm,ky,mt,vu;co,com,net,org:am,uz,vi;biz,com,edu,gov,info,net,org:ki,nr',
  'co,com,edu,gov,net,org:gy,lc;co,net,org:gg,je;com:aw,io;com,edu,gov,int,net,org:is,pt;com,edu,gov,mil,name,net,org,sch:jo,qa;com,edu,gov,org:gi,kp',
  'ac:be;ac,asso,co,com,ed,edu,go,gouv,int,net,or,org:ci;ac,biz,co,com,coop,edu,firm,gov,ind,info,int,me,mil,net,org,pro,tv:in',
  'ac,biz,co,com,coop,edu,gov,int,museum,net,org:mw;ac,biz,co,com,edu,go,gov,int,mil,name,net,org,web:tj',
  'ac,biz,co,com,edu,gob,in,info,int,mil,net,nom,org,web:ni;ac,biz,co,com,edu,gov,info,mil,net,org,sch:zm;ac,biz,co,edu,gov,info,net,org,sc:ls',
  'ac,biz,co,go,mil,net,or,sch,web:id;ac,biz,com,edu,gov,info,int,name,net,org,pro:vn;ac,biz,com,edu,gov,info,name,net,org,pro:pr',
  'ac,biz,com,gov,info,mil,name,net,org,pro:fj;ac,biz,com,gov,mil,net,org,press,pro,tm:cy;ac,co,com,go,ne,or,org,sc:ug;ac,co,com,gov,net,or,org:mu',
  'ac,co,com,net,org,tv:im;ac,co,coop,gov,mil,net,org:rw;ac,co,ed,go,ne,or:jp;ac,co,ed,go,or:cr;ac,co,edu,gov,in,org:rs',
  'ac,co,edu,gov,mil,net,nom,org,tm,web:za;ac,co,edu,gov,mil,net,org:mz;ac,co,edu,gov,net,org:me;ac,co,go,in,net,or:th',
  'ac,co,go,info,me,mil,mobi,ne,or,sc,tv:tz;ac,co,go,info,me,mobi,ne,or,sc:ke;ac,co,go,mil,ne,or,sc:kr;ac,co,gov,id,net,org,sch:ir',
  'ac,co,gov,me,net,org:uk;ac,co,gov,mil,net,org,sch:ae;ac,co,gov,mil,org:zw;ac,co,gov,net,org:il;ac,co,gov,net,org,press:ma;ac,co,mil,net,org:nz',
  'ac,co,or:at;ac,co,org:sz;ac,com,edu,gob,med,net,nom,org:pa;ac,com,edu,gov,int,net,org,sch,web:lk;ac,com,edu,gov,mil,net,org,sc:cn',
  'ac,com,edu,gov,net,org:gn;ac,org,press,tm:se;art,arts,press:museum;art,asso,com,coop,edu,firm,gouv,info,med,net,org,pro:ht',
  'art,asso,com,edu,gov,net,org,tm:dz;art,com,coop,edu,gov,ind,med,mil,net,org,pro,rec,tv:br;art,com,edu,gob,gov,mil,net,org,web:do',
  'art,com,edu,gouv,org:sn;arts,co,com,edu,firm,gob,gov,info,int,mil,net,nom,org,rec,store,web:ve',
  'arts,com,edu,firm,gov,info,int,mil,net,nom,org,rec,web:co;arts,com,firm,info,net,rec,store,web:nf;arts,com,firm,info,nom,org,rec,store,tm:ro',
  'asso,com,coop,edu,gouv,gov,mil,nom,org,tm:km;asso,com,edu,mobi,net,org:gp;asso,com,gouv,nom,tm:fr;asso,com,nom:re;asso,nom:nc;asso,tm:mc',
  'biz,co,com,coop,edu,gov,info,int,mobi,museum,name,net,org,pro:tt;biz,co,com,edu,gov,info,net,org,store,tv:bb',
  'biz,com,coop,edu,gov,info,int,mil,museum,name,net,org,pro:mv;biz,com,edu,gob,gov,info,net,org,web:pk',
  'biz,com,edu,gov,info,int,mil,name,net,org,pro:az;biz,com,edu,gov,info,mil,name,net,org,tv,web:tr;biz,com,edu,gov,info,mil,net,nom,org,tm:pl',
  'biz,com,edu,gov,info,name,net,org:et;biz,com,edu,gov,me,net,org,sch:ss;biz,com,edu,gov,mil,name,net,org:my;co,com,edu,gov,med,museum,net,org,pro:om',
  'co,com,edu,gov,mil,net,nom,org:tm;co,com,edu,gov,mil,nom,org,tm:mg;co,com,edu,info,net,org:bj;co,com,edu,mil,net,org,store:st;co,com,edu,net,org:gl',
  'co,com,edu,or,org:bi;co,com,gov,net:cm;co,com,in,info,mobi,name,or,org,pro,tv:na;co,com,net,nom,org:ag;co,ed:ao;co,ed,go,ne,or:pw',
  'co,edu,go,gov,me,or,tv:it;co,edu,gov,net,org:pn;co,gob,gov,mil:cl;co,id,in,me,ne,or,sc:us;co,info,org,tm:hu;co,org:bw',
  'com,coop,edu,gob,gov,int,mil,net,org:ar;com,coop,edu,gov,mil,net,org:py;com,edu,gob,gov,info,med,mil,net,org,pro:ec;com,edu,gob,ind,mil,net,org:gt',
  'com,edu,gob,info,int,mil,net,org,tv,web:bo;com,edu,gob,mil,net,nom,org:pe;com,edu,gob,mil,net,org:hn;com,edu,gob,net,org:mx;com,edu,gob,nom,org:es',
  'com,edu,gob,org:sv;com,edu,gouv,gov,net,org:ml;com,edu,gov,id,info,net,org:au;com,edu,gov,id,med,net,org,sch:ly;com,edu,gov,id,mil,net,org:lv',
  'com,edu,gov,in,net,org:ua;com,edu,gov,ind,net,org:kw;com,edu,gov,info,int,net,org:la;com,edu,gov,info,med,net,org,tv:sd',
  'com,edu,gov,info,net,org,web:gu;com,edu,gov,me,net,org:so;com,edu,gov,med,net,org,sch:sa;com,edu,gov,med,org:ee',
  'com,edu,gov,mil,mobi,name,net,org,sch:ng;com,edu,gov,mil,name,net,org:eg;com,edu,gov,mil,org:gh;com,edu,gov,name,net,org:mk;com,edu,int,org:cv',
  'com,edu,mil,net,org:uy;com,edu,org:pf;com,gov,ind,info,net,org:tn;com,gov,mil:by;com,gov,mil,net,org:sh;com,name:hr;com,net,org:ai;edu,gov:gd',
  'edu,gov,net,org:kn;edu,gov,org:mn;med:pro;mil,museum,tm:no;nom:ad;press:aero',
];

/** TLDs whose every second-level name is a public suffix (`*.tld` rules). */
export const WILDCARD_TLDS: readonly string[] = ['bd', 'ck', 'er', 'fk', 'jm', 'kh', 'mm', 'np', 'pg'];

/** Exceptions to the wildcard rules that apply to the kept TLDs (`!www.ck`): registrable as they are. */
export const WILDCARD_EXCEPTIONS: readonly string[] = ['www.ck'];
