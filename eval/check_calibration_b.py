import json, glob, os, collections, sys
P='/work/main/eval/calibration_b.jsonl'
C='/work/shared/corpus'
texts={}
for p in glob.glob(C+'/seeds/*.txt')+[q for q in glob.glob(C+'/awesome-papers-repo/**/*',recursive=True) if os.path.isfile(q)]:
    texts[p]=open(p,encoding='utf-8',errors='replace').read()
allt='\n'.join(texts.values())
keys={'id','type','question','gold_titles','gold_sources','answer_must_contain','notes','style'}
types={'paper_lookup','paper_fact','list_query','comparison','conference_meta','affiliation','researcher','unanswerable'}
styles={'formal','casual','short','lowercase','possessive','abbreviation','non_english','typo'}
ids=set(); errs=[]; tc=collections.Counter(); sc=collections.Counter(); n=0
for ln,line in enumerate(open(P,encoding='utf-8'),1):
    o=json.loads(line); n+=1
    if set(o)!=keys: errs.append((ln,'keys',set(o)^keys))
    if o['id'] in ids: errs.append((ln,'dup id',o['id']))
    ids.add(o['id'])
    if o['type'] not in types: errs.append((ln,'type',o['type']))
    if o['style'] not in styles: errs.append((ln,'style',o['style']))
    tc[o['type']]+=1; sc[o['style']]+=1
    for t in o['gold_titles']:
        if t not in allt: errs.append((o['id'],'title missing',t))
    for s in o['answer_must_contain']:
        if s not in allt: errs.append((o['id'],'must missing',s))
    if o['type']=='unanswerable':
        if o['gold_titles'] or o['answer_must_contain']: errs.append((o['id'],'unanswerable has gold'))
    else:
        if not o['gold_titles'] or not o['answer_must_contain']: errs.append((o['id'],'empty gold'))
print('lines',n,'unique ids',len(ids),'errors',len(errs))
for e in errs: print(' ',e)
print('types',dict(tc)); print('styles',dict(sc))
print('lowercase+casual',sc['lowercase']+sc['casual'],f"({(sc['lowercase']+sc['casual'])/n:.0%})")
