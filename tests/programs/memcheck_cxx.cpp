/*
 * memcheck_cxx.cpp - exactly one of each memory finding through <profreport_new.hpp> (new and
 * delete) and PROFILER_MEM_ALLOC (one malloc, for the malloc/delete mismatch). The markers in
 * comments name the lines test_memory.py expects as sites; nothing is printed.
 */
#define PROFILER_MEM_NEW_DEFINE
#include <profreport_new.hpp>

#include <cstdlib>
#include <pthread.h>

/* Through volatile pointers (here and in main), so the compiler neither warns about nor removes
   the bad deletes. */
static void *volatile shared;
static int *volatile keep;

/* Free on another thread what main allocated (pthread: std::thread itself frees on another
   thread what it allocates). Returning a value keeps the delete out of tail position, where
   the return address would be the caller's. */
static void *worker(void *)
{
    delete[] static_cast<char *>(shared); /* @CROSS */
    return nullptr;
}

int main()
{
    int *leak;
    /* Taken before anything is freed, so it can never be the address of a freed block (whose
       tombstone would make its delete a double free): the finding is unknown-free whatever the
       heap's layout. */
    void *volatile hidden = std::malloc(40); /* never reported as allocated */
    {
        PROFILER_SCOPE("setup");
        leak = new int[25]; /* @LEAK */
        keep = leak;
        int *twice = new int(7); /* @TWICE */
        int *volatile gone = twice;
        delete twice; /* @FIRSTFREE */
        delete gone;  /* @DOUBLE */
    }
    {
        PROFILER_SCOPE("work");
        ::operator delete(hidden);               /* @UNKNOWN */
        void *volatile obj = ::operator new(24); /* @NEW */
        ::operator delete[](obj);                /* @DELETEARRAY */
        void *volatile m = std::malloc(56);
        PROFILER_MEM_ALLOC(m, 56, PROF_MEM_MALLOC); /* @MALLOC */
        ::operator delete(m);                       /* @DELETE */
        shared = new char[300];                     /* @SHARED */
    }
    pthread_t t;
    if (pthread_create(&t, nullptr, worker, nullptr) != 0 || pthread_join(t, nullptr) != 0)
        return 1;
    return keep ? 0 : 1;
}
