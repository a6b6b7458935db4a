// The unit phase waits on a shorter clock: see test/time-scale.ts.
import { setTimeScaleForTests } from '../nodes/shared/transport/clock';
import { TEST_TIME_SCALE } from './time-scale';

setTimeScaleForTests(TEST_TIME_SCALE);
