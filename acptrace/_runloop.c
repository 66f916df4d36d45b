/* The run loop of `acptrace.runs.Run.grow`, compiled: the same checks, in the same terms, on
 * the lines most of a big transcript is made of. `runs.py` holds the reference loop in Python
 * (used where this module was not built); tests run both on the same transcripts.
 *
 * grow(lines, start, first, decode, not_plain, session, direction, breaks, live_tags,
 *      snapshot_tag, last_ts, last_mono, second_start, live)
 *   -> (index, plain, last_ts, last_mono, snapshot)
 *
 * `index` is the first line not taken, `plain` that line decoded as a plain update (None when
 * it is not one, or at the end), `last_ts` and `last_mono` the run's times after the lines
 * taken, `snapshot` whether a taken line carried `snapshot_tag`. Never-history tags of taken
 * lines are appended to `live` as (line number, tag).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

static PyObject *s_msg, *s_params, *s_update, *s_session_update, *s_session_id, *s_ts,
    *s_dir, *s_mono_ns;

/* Whether `data` is UTF-8 (what `bytes.decode` accepts), without building the text. */
static int
is_utf8(const unsigned char *data, Py_ssize_t size)
{
    Py_ssize_t i = 0;
    while (i < size) {
        if (i + 8 <= size) {
            uint64_t word;
            memcpy(&word, data + i, 8);
            if (!(word & 0x8080808080808080ULL)) {
                i += 8;
                continue;
            }
        }
        unsigned char c = data[i];
        if (c < 0x80) {
            i += 1;
            continue;
        }
        Py_ssize_t need;
        unsigned char low = 0x80, high = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            need = 1;
        }
        else if (c >= 0xE0 && c <= 0xEF) {
            need = 2;
            if (c == 0xE0) low = 0xA0;
            if (c == 0xED) high = 0x9F; /* no surrogates */
        }
        else if (c >= 0xF0 && c <= 0xF4) {
            need = 3;
            if (c == 0xF0) low = 0x90;
            if (c == 0xF4) high = 0x8F;
        }
        else {
            return 0;
        }
        if (size - i - 1 < need) return 0; /* (cut short) */
        if (data[i + 1] < low || data[i + 1] > high) return 0;
        for (Py_ssize_t k = 2; k <= need; k++) {
            if (data[i + k] < 0x80 || data[i + k] > 0xBF) return 0;
        }
        i += need + 1;
    }
    return 1;
}

/* Whether a usual time's text (27 ASCII characters) holds six digits and a Z after its dot. */
static int
usual_fraction(const char *t)
{
    for (int k = 20; k < 26; k++) {
        if (t[k] < '0' || t[k] > '9') return 0;
    }
    return t[26] == 'Z';
}

/* The verdict on the time of a plain update: 1 taken, 0 the run ends, -1 an error. */
static int
check_time(PyObject *ts, PyObject *last_ts, PyObject *second_start)
{
    if (!PyUnicode_Check(ts) || !PyUnicode_IS_ASCII(ts) || PyUnicode_GET_LENGTH(ts) != 27) {
        return 0;
    }
    if (!PyUnicode_IS_ASCII(last_ts) || PyUnicode_GET_LENGTH(last_ts) != 27) {
        return 0; /* no usual last time (`_NEVER`): every time sorts before it */
    }
    const char *t = (const char *)PyUnicode_1BYTE_DATA(ts);
    const char *last = (const char *)PyUnicode_1BYTE_DATA(last_ts);
    if (memcmp(t, last, 27) < 0) return 0;
    if (memcmp(t, last, 20) != 0) { /* a new second: is it a time? */
        if (t[19] != '.') return 0;
        int in_minute = memcmp(t, last, 17) == 0 && t[17] >= '0' && t[17] <= '5'
                        && t[18] >= '0' && t[18] <= '9';
        if (!in_minute) {
            PyObject *second = PyUnicode_Substring(ts, 0, 19);
            if (second == NULL) return -1;
            PyObject *start = PyObject_CallOneArg(second_start, second);
            Py_DECREF(second);
            if (start == NULL) return -1;
            int valid = start != Py_None;
            Py_DECREF(start);
            if (!valid) return 0;
        }
    }
    return usual_fraction(t);
}

/* The verdict on a decoded plain update (1 taken, 0 the run ends, -1 an error); when it is
 * taken, `*tag_out`, `*ts_out` and `*mono_out` get new references to its tag and times. */
static int
check_update(PyObject *plain, PyObject *session, PyObject *direction, PyObject *breaks,
             PyObject *last_ts, PyObject *last_mono, PyObject *second_start,
             PyObject **tag_out, PyObject **ts_out, PyObject **mono_out)
{
    int verdict = -1;
    PyObject *msg = NULL, *params = NULL, *update = NULL, *tag = NULL, *sid = NULL;
    PyObject *dir = NULL, *ts = NULL, *mono = NULL;
    if (!(msg = PyObject_GetAttr(plain, s_msg))) goto done;
    if (!(params = PyObject_GetAttr(msg, s_params))) goto done;
    if (!(update = PyObject_GetAttr(params, s_update))) goto done;
    if (!(tag = PyObject_GetAttr(update, s_session_update))) goto done;
    if (!(sid = PyObject_GetAttr(params, s_session_id))) goto done;
    if (!(dir = PyObject_GetAttr(plain, s_dir))) goto done;
    if (!(ts = PyObject_GetAttr(plain, s_ts))) goto done;
    if (!(mono = PyObject_GetAttr(plain, s_mono_ns))) goto done;
    int same;
    if ((same = PyObject_RichCompareBool(sid, session, Py_EQ)) <= 0) {
        verdict = same;
        goto done;
    }
    if ((same = PyObject_RichCompareBool(dir, direction, Py_EQ)) <= 0) {
        verdict = same;
        goto done;
    }
    int breaking = PySet_Contains(breaks, tag);
    if (breaking != 0) {
        verdict = breaking < 0 ? -1 : 0;
        goto done;
    }
    if ((verdict = check_time(ts, last_ts, second_start)) != 1) goto done;
    if (mono != Py_None) {
        if (last_mono == Py_None) {
            verdict = 0;
            goto done;
        }
        int back = PyObject_RichCompareBool(mono, last_mono, Py_LT);
        if (back != 0) {
            verdict = back < 0 ? -1 : 0;
            goto done;
        }
    }
    verdict = 1;
    *tag_out = Py_NewRef(tag);
    *ts_out = Py_NewRef(ts);
    *mono_out = Py_NewRef(mono);
done:
    Py_XDECREF(msg);
    Py_XDECREF(params);
    Py_XDECREF(update);
    Py_XDECREF(tag);
    Py_XDECREF(sid);
    Py_XDECREF(dir);
    Py_XDECREF(ts);
    Py_XDECREF(mono);
    return verdict;
}

static PyObject *
grow(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 14) {
        PyErr_SetString(PyExc_TypeError, "grow() takes 14 arguments");
        return NULL;
    }
    PyObject *lines = args[0];
    Py_ssize_t start = PyLong_AsSsize_t(args[1]);
    Py_ssize_t first = PyLong_AsSsize_t(args[2]);
    if ((start == -1 || first == -1) && PyErr_Occurred()) return NULL;
    PyObject *decode = args[3], *not_plain = args[4], *session = args[5], *direction = args[6];
    PyObject *breaks = args[7], *live_tags = args[8], *snapshot_tag = args[9];
    PyObject *second_start = args[12], *live = args[13];
    if (!PyList_Check(lines) || !PyList_Check(live) || !PyAnySet_Check(breaks)
        || !PyAnySet_Check(live_tags) || !PyUnicode_Check(args[10])) {
        PyErr_SetString(PyExc_TypeError,
                        "grow(): lines and live must be lists, tags sets, last_ts a str");
        return NULL;
    }
    PyObject *last_ts = Py_NewRef(args[10]), *last_mono = Py_NewRef(args[11]);
    PyObject *plain = NULL;
    int snapshot = 0;
    Py_ssize_t index = start < 0 ? 0 : start;
    for (; index < PyList_GET_SIZE(lines); index++) {
        PyObject *data = PyList_GET_ITEM(lines, index);
        if (!PyBytes_Check(data)
            || !is_utf8((const unsigned char *)PyBytes_AS_STRING(data), PyBytes_GET_SIZE(data))) {
            break; /* (msgspec does not check the UTF-8 of what it skips) */
        }
        plain = PyObject_CallOneArg(decode, data);
        if (plain == NULL) {
            if (!PyErr_ExceptionMatches(not_plain)) goto error;
            PyErr_Clear();
            break;
        }
        PyObject *tag = NULL, *ts = NULL, *mono = NULL;
        int verdict = check_update(plain, session, direction, breaks, last_ts, last_mono,
                                   second_start, &tag, &ts, &mono);
        if (verdict < 0) goto error;
        if (verdict == 0) break;
        Py_SETREF(last_ts, ts);
        if (mono != Py_None) {
            Py_SETREF(last_mono, mono);
        }
        else {
            Py_DECREF(mono);
        }
        int is_live = PySet_Contains(live_tags, tag);
        if (is_live > 0) {
            PyObject *entry = Py_BuildValue("(nO)", first + index, tag);
            if (entry == NULL || PyList_Append(live, entry) < 0) {
                Py_XDECREF(entry);
                Py_DECREF(tag);
                goto error;
            }
            Py_DECREF(entry);
            int is_snapshot = PyObject_RichCompareBool(tag, snapshot_tag, Py_EQ);
            if (is_snapshot < 0) {
                Py_DECREF(tag);
                goto error;
            }
            snapshot = snapshot || is_snapshot;
        }
        Py_DECREF(tag);
        if (is_live < 0) goto error;
        Py_CLEAR(plain);
    }
    PyObject *result = Py_BuildValue("(nONNO)", index, plain ? plain : Py_None, last_ts,
                                     last_mono, snapshot ? Py_True : Py_False);
    Py_XDECREF(plain);
    return result;
error:
    Py_XDECREF(plain);
    Py_DECREF(last_ts);
    Py_DECREF(last_mono);
    return NULL;
}

static PyMethodDef methods[] = {
    {"grow", (PyCFunction)(void (*)(void))grow, METH_FASTCALL,
     "The run loop of `acptrace.runs.Run.grow` (see there)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef runloop = {
    PyModuleDef_HEAD_INIT, "acptrace._runloop",
    "The run loop of `acptrace.runs`, compiled.", -1, methods,
};

PyMODINIT_FUNC
PyInit__runloop(void)
{
    if (!(s_msg = PyUnicode_InternFromString("msg"))
        || !(s_params = PyUnicode_InternFromString("params"))
        || !(s_update = PyUnicode_InternFromString("update"))
        || !(s_session_update = PyUnicode_InternFromString("sessionUpdate"))
        || !(s_session_id = PyUnicode_InternFromString("sessionId"))
        || !(s_ts = PyUnicode_InternFromString("ts"))
        || !(s_dir = PyUnicode_InternFromString("dir"))
        || !(s_mono_ns = PyUnicode_InternFromString("mono_ns"))) {
        return NULL;
    }
    return PyModule_Create(&runloop);
}
