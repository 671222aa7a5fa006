-- A synthetic Nsight Systems export (schema 3.13.2 tables and columns, as
-- Nsight Systems 2024.5 writes them; only what gpuproj reads, plus a column
-- it does not), with round times worked by hand in tests/unit/test-import-nsys.c.
-- Process cuda-app (pid 4242, globalPid = 2^48 + 4242 * 2^24), thread 4242
-- (main) and 4243; one GPU, an A100-SXM4-40GB; stream 7 is the NULL stream.
--   E0  cudaMalloc [1000, 2000]; cudaMemcpy H2D pageable 1 MB [2100, 12100],
--       on the GPU [2200, 12000]                         -> ends at 12100
--   E1  stencil3d launched [12200, 12210], runs [12300, 13300]; gemm
--       launched [12220, 12230], runs [13300, 15300]; cudaDeviceSynchronize
--       [12240, 15400]                                   -> ends at 15400
--   E2  E1 again, 3300 later                             -> ends at 18700
--   E3  gemm (4 KiB dynamic shared) launched [19000, 19010], runs
--       [19100, 21100]; cudaMemcpyAsync D2H pinned 4 KiB [19020, 19030], on
--       the GPU [21100, 21200]; cudaStreamSynchronize(7) [19040, 21300]
--   thread 4243: cudaMalloc [5000, 5500]; a cudaLaunchKernel that failed
--       [5600, 5610] (no record)
-- Each runtime call of E0 also has a "CUDA backtrace" row (eventClass 67),
-- as 2022.2's exports repeat every call with its call stack.
CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
INSERT INTO META_DATA_EXPORT VALUES
	('EXPORT_PRODUCT_NAME', 'NVIDIA Nsight Systems'),
	('EXPORT_PRODUCT_VERSION', '2024.5.1.113'),
	('EXPORT_SCHEMA_VERSION', '3.13.2'),
	('EXPORT_SCHEMA_VERSION_MAJOR', '3');
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES
	(1, 'cudaMalloc_v3020'), (2, 'cudaMemcpy_v3020'), (3, 'cudaLaunchKernel_v7000'),
	(4, 'cudaDeviceSynchronize_v3020'), (5, '_Z9stencil3dPKdPdiii'),
	(6, 'stencil3d(const double *, double *, int, int, int)'), (7, 'stencil3d'),
	(8, '_Z4gemmIfEviPKfPf'), (9, 'void gemm<float>(int, float const*, float*)'),
	(10, 'gemm'), (11, 'cudaMemcpyAsync_v3020'), (12, 'cudaStreamSynchronize_v3020'),
	(13, 'cuda-app'), (14, 'cudaMalloc');
CREATE TABLE ENUM_NSYS_EVENT_CLASS (id INTEGER PRIMARY KEY, name TEXT, label TEXT);
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES
	(0, 'TRACE_PROCESS_EVENT_CUDA_RUNTIME', 'CUDA runtime'),
	(1, 'TRACE_PROCESS_EVENT_CUDA_DRIVER', 'CUDA driver'),
	(67, 'TRACE_PROCESS_EVENT_CUDABACKTRACE', 'CUDA backtrace');
CREATE TABLE ENUM_CUPTI_STREAM_TYPE (id INTEGER PRIMARY KEY, name TEXT, label TEXT);
INSERT INTO ENUM_CUPTI_STREAM_TYPE VALUES
	(1, 'CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT', 'Default stream'),
	(2, 'CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING', 'Non-blocking stream'),
	(3, 'CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL', 'Null stream');
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER, id INTEGER, name TEXT, l2CacheSize INTEGER,
	totalMemory INTEGER, clockRate INTEGER, smCount INTEGER, chipName TEXT,
	maxRegistersPerBlock INTEGER, maxShmemPerBlockOptin INTEGER, maxShmemPerSm INTEGER,
	maxRegistersPerSm INTEGER, threadsPerWarp INTEGER, maxWarpsPerSm INTEGER,
	maxBlocksPerSm INTEGER, maxThreadsPerBlock INTEGER, computeMajor INTEGER,
	computeMinor INTEGER);
INSERT INTO TARGET_INFO_GPU VALUES (281474976710656, 0, 'NVIDIA A100-SXM4-40GB', 41943040,
	42297524224, 1410000000, 108, 'GA100', 65536, 166912, 167936, 65536, 32, 64, 32, 1024,
	8, 0);
CREATE TABLE TARGET_INFO_CUDA_STREAM (streamId INTEGER, hwId INTEGER, vmId INTEGER,
	processId INTEGER, contextId INTEGER, priority INTEGER, flag INTEGER);
INSERT INTO TARGET_INFO_CUDA_STREAM VALUES (7, 0, 1, 4242, 1, 0, 3), (13, 0, 1, 4242, 1, 0, 2);
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
INSERT INTO PROCESSES VALUES (281546145660928, 4242, 'cuda-app');
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
	eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER,
	returnValue INTEGER NOT NULL, callchainId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES
	(1000, 2000, 0, 281546145665170, 10, 1, 0, NULL),
	(990, 2010, 67, 281546145665170, 10, 14, 0, 1),
	(2100, 12100, 0, 281546145665170, 11, 2, 0, NULL),
	(2090, 12110, 67, 281546145665170, 11, 2, 0, 2),
	(12200, 12210, 0, 281546145665170, 12, 3, 0, NULL),
	(12220, 12230, 0, 281546145665170, 13, 3, 0, NULL),
	(12240, 15400, 0, 281546145665170, 14, 4, 0, NULL),
	(15500, 15510, 0, 281546145665170, 15, 3, 0, NULL),
	(15520, 15530, 0, 281546145665170, 16, 3, 0, NULL),
	(15540, 18700, 0, 281546145665170, 17, 4, 0, NULL),
	(19000, 19010, 0, 281546145665170, 18, 3, 0, NULL),
	(19020, 19030, 0, 281546145665170, 19, 11, 0, NULL),
	(19040, 21300, 0, 281546145665170, 20, 12, 0, NULL),
	(5000, 5500, 0, 281546145665171, 21, 1, 0, NULL),
	(5600, 5610, 0, 281546145665171, 22, 3, 1, NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
	deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
	streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
	demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,
	launchType INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL,
	gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL,
	blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL,
	dynamicSharedMemory INTEGER NOT NULL, graphNodeId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
	(12300, 13300, 0, 1, NULL, 7, 12, 281546145660928, 6, 7, 5, 0, 40, 16, 64, 128, 32, 4, 1,
	 0, 1024, NULL),
	(13300, 15300, 0, 1, NULL, 7, 13, 281546145660928, 9, 10, 8, 0, 32, 64, 64, 1, 16, 16, 1,
	 2048, 0, NULL),
	(15600, 16600, 0, 1, NULL, 7, 15, 281546145660928, 6, 7, 5, 0, 40, 16, 64, 128, 32, 4, 1,
	 0, 1024, NULL),
	(16600, 18600, 0, 1, NULL, 7, 16, 281546145660928, 9, 10, 8, 0, 32, 64, 64, 1, 16, 16, 1,
	 2048, 0, NULL),
	(19100, 21100, 0, 1, NULL, 7, 18, 281546145660928, 9, 10, 8, 0, 32, 64, 64, 1, 16, 16, 1,
	 2048, 4096, NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
	deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
	streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL,
	copyKind INTEGER NOT NULL, srcKind INTEGER, dstKind INTEGER, graphNodeId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES
	(2200, 12000, 0, 1, NULL, 7, 11, 281546145660928, 1000000, 1, 0, 2, NULL),
	(21100, 21200, 0, 1, NULL, 7, 19, 281546145660928, 4096, 2, 2, 1, NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL, end INTEGER NOT NULL,
	deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
	streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
	syncType INTEGER NOT NULL, eventId INTEGER NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES
	(12240, 15400, 0, 1, NULL, 4294967295, 14, 281546145660928, 1, 4294967295),
	(15540, 18700, 0, 1, NULL, 4294967295, 17, 281546145660928, 1, 4294967295),
	(19040, 21300, 0, 1, NULL, 7, 20, 281546145660928, 3, 4294967295);
