import json,statistics as st,math
for b in ['old','new']:
    rows=[]
    for s in range(1,11):
        try: d=json.load(open(f'results/frontier/plans/n26-45s-seeds-collapsed-strata-zen4/n26-{b}-s{s}.json'))
        except Exception: continue
        c=d['core_hours']; hw=(d['core_hours_high']-c)/c
        samp=math.sqrt(max(hw**2-(1.959964*0.06)**2,0))
        rows.append((s,d['sampled_count'],c,hw,samp,d['core_hours_low'],d['core_hours_high'],d['sample_s'],d['estimate_s']))
    if not rows: continue
    for r in rows: print(b,'seed %2d draws %d  %5.0f core-h (%5.0f to %5.0f) +-%.1f%% (sampling +-%.1f%%)  sample %.0f s, took %.0f s'%(r[0],r[1],r[2],r[5],r[6],100*r[3],100*r[4],r[7],r[8]))
    est=[r[2] for r in rows]; m=st.mean(est)
    sd=st.stdev(est) if len(est)>1 else 0
    hw=st.mean([r[4] for r in rows])
    print(b,'seeds %d mean %.0f core-h  sd %.1f%%  sampling half-width %.1f%% = %.2f x 1.96 sd;  largest/smallest %.3f'%(len(rows),m,100*sd/m,100*hw,hw/(1.959964*sd/m) if sd else 0,max(est)/min(est)))
