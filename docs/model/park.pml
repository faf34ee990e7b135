/*
 * The park/wake protocol of docs/DESIGN.md "Spin, then park" (Go's "delicate dance"), for the
 * spin model checker: a second check, independent of the explorer that runs the TypeScript
 * twin (test/model/). Checked by test/model/spin.mjs (npm run test:spin):
 *
 *   spin -a park.pml && cc -DSAFETY -o pan pan.c && ./pan      (must report 0 errors)
 *   spin -DBUG_RECHECK_FIRST -a park.pml ...                    (must report an error)
 *
 * What is kept: sched.lock, the global run queue's size, npidle, nmspinning, the idle-M list,
 * each M's spinning flag, M_NEXTP and the park word's PARK_P bit; findRunnable's global-queue
 * check and becomeSpinning, stopM steps 1-4, wakep steps 1-4, acquireP, execute's
 * resetSpinning, and a submitter (the main thread: ready(-1, g) = globrunqPut, then wakep if a
 * P is idle and nobody spins). What is left out: the local rings and stealing (the explorer
 * covers them on the real code), the class queues (another queue read like the global one).
 * Which idle M wakep takes is left to the checker (any M on the list).
 *
 * Checked: when nothing can move (every M asleep on its park word, the submitter done), every
 * G ran, the queue is empty and nmspinning is 0 (no lost wake-up, nmspinning never stuck);
 * nmspinning never leaves [0, NM + 1] (a byte: below 0 wraps past it); an M woken always finds a P handed over.
 */

#define NM 2 /* Ms */
#define NP 2 /* Ps */
#define NG 2 /* Gs the submitter readies */

bool lock;          /* sched.lock */
byte runqsize;      /* S_RUNQ_SIZE */
byte npidle = NP;   /* S_NPIDLE: every P starts idle */
byte nmspinning;    /* S_NMSPINNING */
bool midle[NM];     /* on S_MIDLE */
bool spinning[NM];  /* M_SPINNING */
bool park[NM];      /* M_PARK & PARK_P */
bool nextp[NM];     /* M_NEXTP != 0 */
byte ran;           /* Gs run */

inline schedLock() { atomic { !lock -> lock = 1 } }
inline schedUnlock() { lock = 0 }

/* wakep: one wake-up in flight (CAS nmspinning 0 -> 1), then an idle P and an idle M. */
inline wakep() {
  if
  :: atomic { nmspinning == 0 -> nmspinning = 1 } ->
     schedLock();
     w = 0;
     do
     :: w < NM && !midle[w] -> w++
     :: w < NM && midle[w] -> break
     :: w == NM -> break
     od;
     if
     :: npidle > 0 && w < NM ->
        npidle--;
        midle[w] = 0; nextp[w] = 1; spinning[w] = 1; /* counted by the CAS */
        schedUnlock();
        park[w] = 1 /* or(park, PARK_P); notify */
     :: else ->
        nmspinning--; /* undo */
        schedUnlock()
     fi
  :: else /* nmspinning != 0: a spinner will look */
  fi
}

proctype M(byte me) {
  byte w;
  bool sp;
end_sleep:
  atomic { park[me] -> park[me] = 0 }; /* the park ladder: wait while 0, then swap to 0 */
  assert(nextp[me]);
  nextp[me] = 0; /* acquireP */
top:
  /* findRunnable: the global queue (size read lock-free, then taken under the lock) */
  if
  :: runqsize > 0 ->
     schedLock();
     if
     :: runqsize > 0 -> runqsize--; schedUnlock(); goto execute
     :: else -> schedUnlock()
     fi
  :: else
  fi;
  /* becomeSpinning: at most half as many spinners as busy Ps */
  if
  :: !spinning[me] && 2 * nmspinning < NP - npidle -> spinning[me] = 1; nmspinning++
  :: else
  fi;
  /* stopM step 1 */
  schedLock();
  if
  :: runqsize > 0 -> runqsize--; schedUnlock(); goto execute
  :: else
  fi;
  /* step 2: P and M idle together; the flag cleared under the lock */
  npidle++;
  sp = spinning[me];
  spinning[me] = 0;
  midle[me] = 1;
  schedUnlock();
  if
  :: !sp -> goto end_sleep
  :: else
  fi;
  /* step 3: leave nmspinning (the StoreLoad point), then recheck */
#ifndef BUG_RECHECK_FIRST
  nmspinning--;
  if
  :: runqsize > 0
  :: else -> goto end_sleep
  fi;
#else
  if
  :: runqsize > 0 -> nmspinning--
  :: else -> nmspinning--; goto end_sleep
  fi;
#endif
  schedLock();
  if
  :: npidle > 0 && midle[me] ->
     midle[me] = 0; npidle--; spinning[me] = 1; nmspinning++;
     schedUnlock();
     goto top /* Stop.Retry, acquireP */
  :: else -> schedUnlock(); goto end_sleep
  fi;
execute:
  /* execute: resetSpinning, then wake the next spinner if work is in sight */
  if
  :: spinning[me] ->
     spinning[me] = 0;
     nmspinning--;
     if
     :: runqsize > 0 -> wakep()
     :: else
     fi
  :: else
  fi;
  ran++;
  goto top
}

proctype Submitter() {
  byte i;
  byte w;
  do
  :: i < NG ->
     schedLock(); runqsize++; schedUnlock(); /* globrunqPut */
     if
     :: npidle > 0 && nmspinning == 0 -> wakep()
     :: else
     fi;
     i++
  :: else -> break
  od
}

/* Bounds on nmspinning, at every state: each M counted once, plus at most one wakep's count
 * in flight (its CAS needs 0) before it finds no idle M and undoes it. */
active proctype Bounds() {
end:
  nmspinning > NM + 1 -> assert(false) /* executable only when violated: timeout still fires */
}

/* Nothing can move: every G ran, nothing queued, nobody counted spinning. */
active proctype Quiet() {
  timeout -> assert(runqsize == 0 && ran == NG && nmspinning == 0)
}

init {
  atomic {
    byte k = 0;
    do
    :: k < NM -> midle[k] = 1; run M(k); k++
    :: else -> break
    od;
    run Submitter()
  }
}
