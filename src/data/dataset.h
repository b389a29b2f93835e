/* dataset.h - what `--data PATH` means: real input samples for a model,
 * loaded and checked against the model's inputs once, then cut into
 * batches on request (outside any timed loop).
 *
 * PATH is one of (docs/DATA.md has the full rules):
 *  - a .npy file (a one-input model only);
 *  - an .npz archive, members named after the inputs (a one-member archive
 *    feeds a one-input model whatever its name; other members are ignored);
 *  - a .pb ONNX TensorProto (a one-input model only);
 *  - a list "name=file.npy,name2=file2.pb" naming a file per input;
 *  - a directory of sample_<k> directories each holding <input>.npy (or
 *    .pb), of ONNX test_data_set_<k> directories each holding
 *    input_<i>.pb (inputs matched by the TensorProto's name, else by
 *    position), or itself holding the files of one such set;
 *  - a PNG/JPEG image, or a directory of them in class folders (the
 *    ImageFolder convention) or not, for a one-input image model
 *    (imagedir.h: decoded and preprocessed as the plan's image options
 *    say).
 *
 * Sample axis: when the model input's first dimension is symbolic or a
 * fixed 1, it is the batch axis and a sample is the input without it;
 * otherwise (and for rank 0 inputs) a sample is the whole input.  An input
 * of unknown rank (a TorchScript or Python argument) takes axis 0 of the
 * file as its batch axis: a [N, ...] array is N samples.  A file tensor with
 * the sample's rank holds one sample; one with one more dimension holds dims[0]
 * samples.  Every sample must have the input's dtype exactly and match its
 * fixed dimensions, else MB_EDATA naming the input, the expected and the found
 * type and shape, and the file.  Every input must hold the same number of
 * samples.
 */
#ifndef MB_DATA_DATASET_H
#define MB_DATA_DATASET_H

#include "core/tlimit.h"
#include "data/image.h"
#include "mbench_backend.h"

#include <stddef.h>
#include <stdint.h>

typedef struct mb__dataset mb__dataset;

/* Loads and checks every sample for the model inputs[0..n_inputs) (borrowed
 * for the call only; dims < 0 are symbolic), every file read under lim
 * (core/tlimit.h; NULL: the defaults).  Caller frees *out with
 * mb__dataset_free.  Errors: MB_EIO (missing file), MB_EFORMAT (corrupt
 * file), MB_EDATA (does not match the model), MB_EUNSUPPORTED, MB_ENOMEM. */
mb_status mb__dataset_load(const char *path, const mb_io_desc *inputs,
                           size_t n_inputs, const mb__tlimit *lim,
                           mb__dataset **out, mb_err *err);
/* The same with the preprocessing of image data (image.h; NULL: the
 * defaults), borrowed for the call. */
mb_status mb__dataset_load_prep(const char *path, const mb_io_desc *inputs,
                                size_t n_inputs, const mb__tlimit *lim,
                                const mb__image_prep *prep, mb__dataset **out,
                                mb_err *err);

/* Number of samples (the same for every input; at least 1). */
size_t mb__dataset_count(const mb__dataset *d);

/* Number of inputs the data set was loaded for. */
size_t mb__dataset_inputs(const mb__dataset *d);

/* Fills out[0..n_inputs) (overwritten; caller mb_tensor_clear's each) with
 * samples first, first+1, ..., first+batch-1 (indices modulo the sample
 * count, so a small data set wraps around) stacked on the batch axis, in
 * the order of the inputs given to mb__dataset_load, each named after its
 * input.  An input without a batch axis, or with a fixed batch of 1,
 * accepts only batch == 1 (MB_EDATA otherwise).  On failure every out[i]
 * is zeroed. */
mb_status mb__dataset_batch(const mb__dataset *d, size_t first, int64_t batch,
                            mb_tensor *out, mb_err *err);

/* One line such as "digits.npz: 360 samples" (borrowed until free). */
const char *mb__dataset_describe(const mb__dataset *d);

/* NULL is a no-op. */
void mb__dataset_free(mb__dataset *d);

#endif
