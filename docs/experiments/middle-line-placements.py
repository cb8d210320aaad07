import itertools,sys
def placements(n):
    m=n//2; M=[m-1,m]
    out=[]
    for rows in itertools.product(range(n),repeat=2):
        for cols in itertools.product(range(n),repeat=2):
            q=set()
            for i in range(2):
                q.add((rows[i],M[i])); q.add((M[i],cols[i]))
            q=list(q)
            rs=[a for a,b in q]; cs=[b for a,b in q]
            if len(set(rs))!=len(q) or len(set(cs))!=len(q): continue
            # each middle line exactly one queen
            ok=all(sum(1 for a,b in q if a==r)==1 for r in M) and all(sum(1 for a,b in q if b==c)==1 for c in M)
            if not ok: continue
            if any(abs(a1-a2)==abs(b1-b2) for (a1,b1),(a2,b2) in itertools.combinations(q,2)): continue
            out.append(frozenset(q))
    return set(out)
def images(q,n):
    res=[]
    for t in range(8):
        def f(a,b):
            if t&1: a=n-1-a
            if t&2: b=n-1-b
            if t&4: a,b=b,a
            return (a,b)
        res.append(frozenset(f(a,b) for a,b in q))
    return res
for n in map(int,sys.argv[1:]):
    P=placements(n)
    canon=set(min(images(q,n),key=lambda s:sorted(s)) for q in P)
    print(n,len(P),len(canon), sum(len(set(images(q,n))) for q in canon))
