! SPDX-License-Identifier: GPL-2.0-or-later
! a2a_types_f.f90 - the datatype matrix's send and receive types that differ
! with equal signatures, through the Fortran binding (use mpi): the transpose
! of an N x N matrix of doubles (one row, resized to one element, an hvector
! of N of those, resized to the matrix) against N*N MPI_DOUBLE_PRECISION, and
! a struct {INTEGER at byte 4, INTEGER at byte 0} against 2 x MPI_INTEGER,
! both ways round, by MPI_Alltoall, and the send-side ones by MPI_Alltoallv.
! What must arrive is computed here from what each sender wrote (MPICH's
! pmpi_alltoall_ calls MPI_Alltoall, the preload's: no MPI's own to compare
! with from Fortran). Prints "TYPES_F FAIL CASE rank R: B of M elements
! differ" per failing case and rank, and on rank 0
! "TYPES_F cases=C ranks=P failures=F"; stops with 1 on a failure.
program a2a_types_f
  use mpi
  implicit none
  integer, parameter :: n = 32, k = n * n / 2
  integer :: ierr, rank, nprocs, j, i, c, e, bad, failures, tr, pair, row, row1, rows
  integer(kind=MPI_ADDRESS_KIND) :: lb, ext, disp(2)
  integer :: blen(2), types(2)
  double precision, allocatable :: ds(:,:,:), dr(:,:,:)
  integer, allocatable :: is(:,:), ir(:,:), cnt(:), dsp(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  allocate(ds(n, n, 0:nprocs-1), dr(n, n, 0:nprocs-1), is(2*k, 0:nprocs-1), ir(2*k, 0:nprocs-1))
  allocate(cnt(nprocs), dsp(nprocs))
  failures = 0

  ! The transpose: element (i, c) of a column-major matrix, row by row.
  call MPI_Type_vector(n, 1, n, MPI_DOUBLE_PRECISION, row, ierr)
  lb = 0
  ext = 8
  call MPI_Type_create_resized(row, lb, ext, row1, ierr)
  call MPI_Type_create_hvector(n, 1, ext, row1, rows, ierr)
  ext = 8 * n * n
  call MPI_Type_create_resized(rows, lb, ext, tr, ierr)
  call MPI_Type_commit(tr, ierr)
  ! { INTEGER at byte 4, INTEGER at byte 0 }: extent 8, dense, permuted.
  blen = 1
  disp(1) = 4
  disp(2) = 0
  types = MPI_INTEGER
  call MPI_Type_create_struct(2, blen, disp, types, pair, ierr)
  call MPI_Type_commit(pair, ierr)

  do j = 0, nprocs - 1
    do c = 1, n
      do i = 1, n
        ds(i, c, j) = dval(rank, j, i, c)
      end do
    end do
    do e = 1, 2 * k
      is(e, j) = ival(rank, j, e)
    end do
  end do

  ! transpose-send: what arrives from j is the transpose of j's matrix.
  dr = -1
  call MPI_Alltoall(ds, 1, tr, dr, n * n, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
  call check_transpose('transpose-send')
  ! transpose-recv: the plain stream stored through the transpose.
  dr = -1
  call MPI_Alltoall(ds, n * n, MPI_DOUBLE_PRECISION, dr, 1, tr, MPI_COMM_WORLD, ierr)
  call check_transpose('transpose-recv')
  ! transpose-send by MPI_Alltoallv.
  do j = 1, nprocs
    cnt(j) = 1
    dsp(j) = j - 1
  end do
  dr = -1
  call MPI_Alltoallv(ds, cnt, dsp, tr, dr, cnt * n * n, dsp * n * n, MPI_DOUBLE_PRECISION, &
                     MPI_COMM_WORLD, ierr)
  call check_transpose('transpose-send-alltoallv')
  ! struct-send and struct-recv: each pair of INTEGERs swapped.
  ir = -1
  call MPI_Alltoall(is, k, pair, ir, 2 * k, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check_swapped('struct-permuted-send')
  ir = -1
  call MPI_Alltoall(is, 2 * k, MPI_INTEGER, ir, k, pair, MPI_COMM_WORLD, ierr)
  call check_swapped('struct-permuted-recv')
  ir = -1
  do j = 1, nprocs
    cnt(j) = k
    dsp(j) = (j - 1) * k
  end do
  call MPI_Alltoallv(is, cnt, dsp, pair, ir, 2 * cnt, 2 * dsp, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check_swapped('struct-permuted-send-alltoallv')

  call MPI_Type_free(tr, ierr)
  call MPI_Type_free(pair, ierr)
  call MPI_Type_free(rows, ierr)
  call MPI_Type_free(row1, ierr)
  call MPI_Type_free(row, ierr)
  if (rank == 0) print '(A,I0,A,I0,A,I0)', 'TYPES_F cases=6 ranks=', nprocs, ' failures=', failures
  flush(6)  ! the verdict out before MPI_Finalize, as the C programs do
  call MPI_Finalize(ierr)
  if (failures /= 0) stop 1

contains
  double precision function dval(src, dst, i, c)
    integer, intent(in) :: src, dst, i, c
    dval = src * 1000000 + dst * 10000 + i * 100 + c
  end function dval

  integer function ival(src, dst, e)
    integer, intent(in) :: src, dst, e
    ival = src * 1000000 + dst * 10000 + e
  end function ival

  ! One case's outcome, agreed by every rank.
  subroutine tally(name, nbad, total)
    character(len=*), intent(in) :: name
    integer, intent(in) :: nbad, total
    integer :: any

    if (nbad /= 0) print '(A,A,A,I0,A,I0,A,I0,A)', 'TYPES_F FAIL ', name, ' rank ', rank, ': ', &
        nbad, ' of ', total, ' elements differ'
    call MPI_Allreduce(nbad, any, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
    if (any /= 0) failures = failures + 1
  end subroutine tally

  subroutine check_transpose(name)
    character(len=*), intent(in) :: name
    integer :: jj, ii, cc

    bad = 0
    do jj = 0, nprocs - 1
      do cc = 1, n
        do ii = 1, n
          if (dr(ii, cc, jj) /= dval(jj, rank, cc, ii)) bad = bad + 1
        end do
      end do
    end do
    call tally(name, bad, n * n * nprocs)
  end subroutine check_transpose

  subroutine check_swapped(name)
    character(len=*), intent(in) :: name
    integer :: jj, ee

    bad = 0
    do jj = 0, nprocs - 1
      do ee = 1, 2 * k, 2
        if (ir(ee, jj) /= ival(jj, rank, ee + 1)) bad = bad + 1
        if (ir(ee + 1, jj) /= ival(jj, rank, ee)) bad = bad + 1
      end do
    end do
    call tally(name, bad, 2 * k * nprocs)
  end subroutine check_swapped
end program a2a_types_f
