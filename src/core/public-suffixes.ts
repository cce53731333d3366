/**
 * Second-level public suffixes under country-code and generic TLDs (`co.uk`,
 * `com.au`, `gov.br`, …): the part of the Public Suffix List that {@link registrableDomain}
 * (site.ts) needs, and nothing it does not.
 *
 * Source: the Public Suffix List, https://publicsuffix.org/list/public_suffix_list.dat
 * (the copy shipped by Debian's `publicsuffix` package, version 20230209.2326), ICANN
 * section only. Kept: every two-label rule whose first label is one of the forty labels
 * used as a second level under at least five TLDs ({@link SECOND_LEVEL_LABELS}),
 * 1,167 rules; and the TLDs that have a wildcard rule (`*.ck`) with their exceptions.
 * Left out, deliberately: the private section (github.io, workers.dev, … hand out free
 * subdomains, so they must count as one site), internationalised rules, and the
 * geographic and sectoral suffixes (`aichi.jp`, `oslo.no`, `k12.ca.us`): a suffix left
 * out only makes its registrants share one site (more grouping, never a free site).
 *
 * License of this data: Mozilla Public License 2.0 (https://mozilla.org/MPL/2.0/), as the
 * list itself. This file is a derived, re-encoded subset (see {@link SECOND_LEVEL_SUFFIXES}).
 */

/** The forty labels kept as second levels, most used first; in {@link SECOND_LEVEL_SUFFIXES} `a` is the first, `z` the 26th, `A` the 27th. */
export const SECOND_LEVEL_LABELS: readonly string[] = [
  'org',
  'com',
  'net',
  'edu',
  'gov',
  'mil',
  'co',
  'ac',
  'info',
  'biz',
  'int',
  'name',
  'nom',
  'or',
  'gob',
  'pro',
  'web',
  'go',
  'tm',
  'sch',
  'coop',
  'med',
  'tv',
  'asso',
  'me',
  'ne',
  'sc',
  'art',
  'firm',
  'gouv',
  'in',
  'mobi',
  'arts',
  'ed',
  'id',
  'ind',
  'museum',
  'press',
  'rec',
  'store',
];

/**
 * The rules, grouped by the set of second levels a TLD has: groups `letters:tld,tld,…`
 * separated by `;`, each letter naming one of {@link SECOND_LEVEL_LABELS} (`ab:…` is
 * `org` and `com` under each TLD of the group). The strings are only split for line length.
 */
export const SECOND_LEVEL_SUFFIXES: readonly string[] = [
  'abcde:af,bh,bm,bn,bs,bt,bz,cu,dm,gr,hk,lb,lr,mo,ms,ps,sb,sc,sg,sl,ws;abcdef:ac,al,ba,ge,iq,kg,kz,ph,sy,to,tw,vc,ye',
  'e:as,bf,cd,cx,ie,lt,mr,sx,tl;abcd:cw,fm,ky,mt,vu;abcg:am,uz,vi;abcdeflt:jo,qa;abcdeg:gy,lc;abcdeij:ki,nr;abcdek:is,pt;abde:gi,kp;acg:gg,je',
  'b:aw,io;AEIgnyz:us;AFfghinrwyz:tz;AFghinryz:ke;Aabcdefh:cn;Aabghnrz:ug;Aacdeghij:ls;Afghnrz:kr;BCDabcdipuvx:ht;BDabd:sn;BGL:museum',
  'BJMabcdefpuvw:br;Babcdefoq:do;Babcdesx:dz;CGMNabcdefgikmoq:ve;CGMNabims:ro;CGMNbciq:nf;CGMabcdefikmq:co;CJabcdefghijkpuwy:in;DHabcdghknrx:ci',
  'Dabcde:ml;Dabdefmsux:km;Dbmsx:fr;EFabgilnpw:na;Eabcde:ua;Eabcdfghijkmoq:ni;Eadegh:rs;Ecghnr:th;FKabcdegijklpu:tt;Fabcdeflt:ng;Fabcdx:gp',
  'Hg:ao;Hghnr:cr;Hghnrz:jp;Hgnrz:pw;Iabcdef:lv;Iabcdei:au;Iabcdetv:ly;Iaceght:ir;Jabcde:kw;Jabcdfo:gt;Jabcei:tn;Kabcdefijklpu:mv',
  'Kabcdeghjku:mw;Kabcdegpv:om;Kfs:no;L:aero;Labcefhjps:cy;Lacegh:ma;Lahs:se;Nabcdegijw:bb;Nabcdfg:st;abc:ai;abcdefghijt:zm;abcdefghjklqr:tj',
  'abcdefgm:tm;abcdefijklp:az;abcdefijlqw:tr;abcdefijms:pl;abcdefiopv:ec;abcdefjl:my;abcdefkou:ar;abcdefl:eg;abcdefu:py;abcdeh:gn',
  'abcdehijklp:vn;abcdehijlp:pr;abcdehkqt:lk;abcdeijl:et;abcdeijoq:pk;abcdeik:la;abcdeiq:gu;abcdeivw:sd;abcdejty:ss;abcdel:mk;abcdetv:sa',
  'abcdey:so;abcdf:uy;abcdfikoqw:bo;abcdfmo:pe;abcdfo:hn;abcdg:gl;abcdgi:bj;abcdhmov:pa;abcdo:mx;abcef:sh;abcefhijlp:fj;abceghn:mu;abcghw:im',
  'abcgm:ag;abd:pf;abdef:gh;abdefgms:mg;abdev:ee;abdgn:bi;abdk:cv;abdmo:es;abdo:sv;acde:kn;acdefgh:mz;acdefghmqs:za;acdeg:pn;acdegh:me',
  'acefght:ae;acefghu:rw;acegh:il;aceghy:uk;acfgh:nz;ade:mn;aefgh:zw;ag:bw;agh:sz;agis:hu;bceg:cm;bef:by;bl:hr;bmx:re;cfghjnqrt:id;de:gd',
  'degnrwy:it;efgo:cl;ghn:at;h:be;m:ad;mx:nc;sx:mc;v:pro',
];

/** TLDs whose every second-level name is a public suffix (`*.tld` rules). */
export const WILDCARD_TLDS: readonly string[] = ['bd', 'ck', 'er', 'fk', 'jm', 'kh', 'mm', 'np', 'pg'];

/** Exceptions to the wildcard rules that apply to the kept TLDs (`!www.ck`): registrable as they are. */
export const WILDCARD_EXCEPTIONS: readonly string[] = ['www.ck'];
