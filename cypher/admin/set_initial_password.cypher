// Replace the built-in initial password of a fresh local server (runs on the system database).
ALTER CURRENT USER SET PASSWORD FROM $old TO $new
