/* SPDX-License-Identifier: MIT */
/* The CPython C-API entry points accwatch calls, resolved with dlsym at run
 * time: no CPython header or struct layout is compiled in (3.8 to 3.13). */
#ifndef ACCWATCH_CAPI_H
#define ACCWATCH_CAPI_H

#include <sys/types.h>

/* A PyObject, never dereferenced: only passed back to the C-API. */
typedef struct accwatch_pyobject accwatch_pyobject;

/* PyMethodDef, part of the stable ABI. */
struct accwatch_py_method_def {
	const char *ml_name;
	void *ml_meth;
	int ml_flags;
	const char *ml_doc;
};

/* Py_buffer, part of the stable ABI (3.11 limited API; same layout since
 * 3.3): only buf and len are read. */
struct accwatch_py_buffer {
	void *buf;
	accwatch_pyobject *obj;
	ssize_t len;
	ssize_t itemsize;
	int readonly;
	int ndim;
	char *format;
	ssize_t *shape;
	ssize_t *strides;
	ssize_t *suboffsets;
	void *internal;
};

/* PyType_Slot, PyType_Spec and PyMemberDef, part of the stable ABI. */
struct accwatch_py_type_slot {
	int slot;
	void *pfunc;
};
struct accwatch_py_type_spec {
	const char *name;
	int basicsize;
	int itemsize;
	unsigned int flags;
	struct accwatch_py_type_slot *slots;
};
struct accwatch_py_getset_def {
	const char *name;
	void *get;
	void *set;
	const char *doc;
	void *closure;
};
struct accwatch_py_member_def {
	const char *name;
	int type;
	ssize_t offset;
	int flags;
	const char *doc;
};

/* Constants of the stable ABI (typeslots.h, object.h, structmember.h);
 * HAVE_VECTORCALL and __vectorcalloffset__ for a heap type: 3.9+. */
#define ACCWATCH_PY_TP_CALL 50
#define ACCWATCH_PY_TP_DESCR_GET 54
#define ACCWATCH_PY_TP_MEMBERS 72
#define ACCWATCH_PY_TP_GETSET 73
#define ACCWATCH_PY_TPFLAGS_HAVE_VECTORCALL (1u << 11)
#define ACCWATCH_PY_TPFLAGS_METHOD_DESCRIPTOR (1u << 17)
#define ACCWATCH_PY_TPFLAGS_DEFAULT (1u << 18)
#define ACCWATCH_PY_T_PYSSIZET 19
#define ACCWATCH_PY_READONLY 1
#define ACCWATCH_PY_VECTORCALL_ARGUMENTS_OFFSET ((size_t)1 << 63)

#define ACCWATCH_PY_METH_VARARGS 0x0001
#define ACCWATCH_PY_METH_KEYWORDS 0x0002
#define ACCWATCH_PY_METH_FASTCALL 0x0080
#define ACCWATCH_PY_FILE_INPUT 257

typedef int (*accwatch_py_audit_hook_fn)(const char *event,
					 accwatch_pyobject *args, void *data);

/* The signatures of METH_FASTCALL, METH_FASTCALL | METH_KEYWORDS and
 * METH_VARARGS | METH_KEYWORDS. */
typedef accwatch_pyobject *(*accwatch_py_fastcall_fn)(
    accwatch_pyobject *self, accwatch_pyobject *const *args, ssize_t nargs);
typedef accwatch_pyobject *(*accwatch_py_fastcall_keywords_fn)(
    accwatch_pyobject *self, accwatch_pyobject *const *args, ssize_t nargs,
    accwatch_pyobject *kwnames);
typedef accwatch_pyobject *(*accwatch_py_keywords_fn)(
    accwatch_pyobject *self, accwatch_pyobject *args,
    accwatch_pyobject *kwargs);

/* Members are named after the C-API functions they point to. The first group
 * is resolved when libaccwatch.so starts in a Python process, the rest when
 * torch is seen and the recorder is attached. */
/* PyMemAllocatorEx of the public C API (pymem.h). */
struct accwatch_mem_allocator {
	void *ctx;
	void *(*malloc)(void *ctx, size_t size);
	void *(*calloc)(void *ctx, size_t count, size_t size);
	void *(*realloc)(void *ctx, void *block, size_t size);
	void (*free)(void *ctx, void *block);
};

struct accwatch_capi {
	/* Needed by the audit hook. */
	int (*Py_IsInitialized)(void);
	int (*PySys_AddAuditHook)(accwatch_py_audit_hook_fn hook, void *data);
	void (*PyMem_GetAllocator)(int domain,
				   struct accwatch_mem_allocator *allocator);
	void (*PyMem_SetAllocator)(int domain,
				   struct accwatch_mem_allocator *allocator);
	void (*PyErr_Fetch)(accwatch_pyobject **type, accwatch_pyobject **value,
			    accwatch_pyobject **traceback);
	void (*PyErr_Restore)(accwatch_pyobject *type, accwatch_pyobject *value,
			      accwatch_pyobject *traceback);
	void (*PyErr_Clear)(void);
	accwatch_pyobject *(*PyImport_GetModuleDict)(void);
	accwatch_pyobject *(*PyDict_GetItem)(accwatch_pyobject *dict,
					     accwatch_pyobject *key);
	accwatch_pyobject *(*PyUnicode_InternFromString)(const char *text);
	accwatch_pyobject *(*PyObject_GetAttrString)(accwatch_pyobject *object,
						     const char *name);
	int (*PyObject_IsTrue)(accwatch_pyobject *object);
	void (*Py_IncRef)(accwatch_pyobject *object);
	void (*Py_DecRef)(accwatch_pyobject *object);

	/* Needed by the recorder. */
	accwatch_pyobject *(*PyErr_Occurred)(void);
	void (*PyErr_Print)(void);
	accwatch_pyobject *(*Py_CompileString)(const char *source,
					       const char *filename, int start);
	accwatch_pyobject *(*PyEval_EvalCode)(accwatch_pyobject *code,
					      accwatch_pyobject *globals,
					      accwatch_pyobject *locals);
	accwatch_pyobject *(*PyEval_GetBuiltins)(void);
	accwatch_pyobject *(*PyDict_New)(void);
	int (*PyDict_SetItemString)(accwatch_pyobject *dict, const char *key,
				    accwatch_pyobject *value);
	accwatch_pyobject *(*PyDict_GetItemString)(accwatch_pyobject *dict,
						   const char *key);
	accwatch_pyobject *(*PyCFunction_NewEx)(
	    struct accwatch_py_method_def *def, accwatch_pyobject *self,
	    accwatch_pyobject *module);
	accwatch_pyobject *(*PyObject_CallObject)(accwatch_pyobject *callable,
						  accwatch_pyobject *args);
	accwatch_pyobject *(*PyObject_Call)(accwatch_pyobject *callable,
					    accwatch_pyobject *args,
					    accwatch_pyobject *kwargs);
	accwatch_pyobject *(*PyTuple_Pack)(ssize_t count, ...);
	accwatch_pyobject *(*PyObject_Type)(accwatch_pyobject *object);
	accwatch_pyobject *(*PySequence_List)(accwatch_pyobject *object);
	ssize_t (*PyList_Size)(accwatch_pyobject *list);
	accwatch_pyobject *(*PyList_GetItem)(accwatch_pyobject *list,
					     ssize_t index);
	ssize_t (*PyTuple_Size)(accwatch_pyobject *tuple);
	accwatch_pyobject *(*PyTuple_GetItem)(accwatch_pyobject *tuple,
					      ssize_t index);
	accwatch_pyobject *(*PyTuple_GetSlice)(accwatch_pyobject *tuple,
					       ssize_t low, ssize_t high);
	long long (*PyLong_AsLongLongAndOverflow)(accwatch_pyobject *object,
						  int *overflow);
	accwatch_pyobject *(*PyLong_FromLongLong)(long long value);
	accwatch_pyobject *(*PyUnicode_FromString)(const char *text);
	const char *(*PyUnicode_AsUTF8)(accwatch_pyobject *text);
	const char *(*PyUnicode_AsUTF8AndSize)(accwatch_pyobject *text,
					       ssize_t *size);
	int (*PyObject_GetBuffer)(accwatch_pyobject *object,
				  struct accwatch_py_buffer *view, int flags);
	void (*PyBuffer_Release)(struct accwatch_py_buffer *view);
	accwatch_pyobject *(*PyObject_Repr)(accwatch_pyobject *object);
	int (*PyDict_Next)(accwatch_pyobject *dict, ssize_t *position,
			   accwatch_pyobject **key, accwatch_pyobject **value);
	int (*PyObject_IsInstance)(accwatch_pyobject *object,
				   accwatch_pyobject *kind);
	accwatch_pyobject *(*PyModule_New)(const char *name);
	int (*PyObject_SetAttrString)(accwatch_pyobject *object,
				      const char *name,
				      accwatch_pyobject *value);
	accwatch_pyobject *(*PyUnicode_AsEncodedString)(accwatch_pyobject *text,
							const char *encoding,
							const char *errors);
	int (*PyBytes_AsStringAndSize)(accwatch_pyobject *bytes, char **buffer,
				       ssize_t *length);

	/* Objects (data symbols), borrowed for the life of the process. */
	accwatch_pyobject *Py_None;
	accwatch_pyobject *PyList_Type;
	accwatch_pyobject *PyTuple_Type;
	accwatch_pyobject *PyDict_Type;
	accwatch_pyobject *PyUnicode_Type;
	accwatch_pyobject *PyLong_Type;

	/* Optional, for the per-batch methods in C (accwatch_record_hot.c):
	 * all set, or all NULL when one is missing (PyObject_Vectorcall is
	 * 3.9+); the bootstrap then keeps its Python wrappers. */
	struct {
		accwatch_pyobject *(*PyInstanceMethod_New)(
		    accwatch_pyobject *func);
		accwatch_pyobject *(*PyObject_Vectorcall)(
		    accwatch_pyobject *callable, accwatch_pyobject *const *args,
		    size_t nargsf, accwatch_pyobject *kwnames);
		accwatch_pyobject *(*PyLong_FromVoidPtr)(void *pointer);
		int (*PyList_SetItem)(accwatch_pyobject *list, ssize_t index,
				      accwatch_pyobject *item);
		int (*PyErr_ExceptionMatches)(accwatch_pyobject *kind);
		long long (*PyLong_AsLongLong)(accwatch_pyobject *object);
		accwatch_pyobject **PyExc_StopIteration; /* the variable */
		/* The per-batch method type (accwatch_record_hot.c). */
		accwatch_pyobject *(*PyType_FromSpec)(
		    struct accwatch_py_type_spec *spec);
		accwatch_pyobject *(*PyMethod_New)(accwatch_pyobject *function,
						   accwatch_pyobject *self);
		accwatch_pyobject *(*PyVectorcall_Call)(
		    accwatch_pyobject *callable, accwatch_pyobject *args,
		    accwatch_pyobject *kwargs);
		accwatch_pyobject *(*PyObject_GenericGetDict)(
		    accwatch_pyobject *object, void *context);
		int (*PyObject_GenericSetDict)(accwatch_pyobject *object,
					       accwatch_pyobject *value,
					       void *context);
	} batch;
};

/* Py_XDECREF: drops the reference to object unless it is NULL. */
static inline void accwatch_py_drop(const struct accwatch_capi *api,
				    accwatch_pyobject *object)
{
	if (object)
		api->Py_DecRef(object);
}

#endif
