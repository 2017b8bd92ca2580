! SPDX-License-Identifier: GPL-2.0-or-later
! a2a_w_f.f90 - MPI_Alltoallw through the Fortran binding (use mpi), as a
! Fortran FFT code transposes: rank r holds columns r*nb+1..(r+1)*nb of an
! N x N matrix G(i, j) = i * 1000 + j and receives rows r*nb+1..(r+1)*nb,
! every block a pair of subarray types (MPI_ORDER_FORTRAN) that differ with
! equal signatures. Then MPI_Alltoallw with MPI_IN_PLACE, INTEGER columns.
! What must arrive is computed from what each sender wrote (MPICH's
! pmpi_alltoallw_ calls MPI_Alltoallw, the preload's: no MPI's own to compare
! with from Fortran). Prints "W_F cases=2 ranks=P failures=F" on rank 0;
! stops with 1 on a failure.
program a2a_w_f
  use mpi
  implicit none
  integer, parameter :: nb = 5, m = 7
  integer :: ierr, rank, nprocs, n, p, i, j, bad, failures
  integer :: sizes(2), subs(2), starts(2)
  integer, allocatable :: st(:), rt(:), cnt(:), dsp(:), x(:,:)
  double precision, allocatable :: a(:,:), b(:,:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  n = nb * nprocs
  allocate(a(n, nb), b(nb, n), st(nprocs), rt(nprocs), cnt(nprocs), dsp(nprocs), x(m, 0:nprocs-1))
  do j = 1, nb
    do i = 1, n
      a(i, j) = i * 1000 + (rank * nb + j)
    end do
  end do
  b = -1
  do p = 0, nprocs - 1
    sizes = (/ n, nb /); subs = (/ nb, nb /); starts = (/ p * nb, 0 /)
    call MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, &
         MPI_DOUBLE_PRECISION, st(p+1), ierr)
    sizes = (/ nb, n /); subs = (/ nb, nb /); starts = (/ 0, p * nb /)
    call MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, &
         MPI_DOUBLE_PRECISION, rt(p+1), ierr)
    call MPI_Type_commit(st(p+1), ierr)
    call MPI_Type_commit(rt(p+1), ierr)
  end do
  cnt = 1
  dsp = 0
  call MPI_Alltoallw(a, cnt, dsp, st, b, cnt, dsp, rt, MPI_COMM_WORLD, ierr)
  bad = 0
  do j = 1, n
    do i = 1, nb
      if (b(i, j) /= (rank * nb + i) * 1000 + j) bad = bad + 1
    end do
  end do
  failures = 0
  if (bad > 0) failures = 1
  ! In place: column p of x goes to rank p, and rank p's column r comes back.
  do p = 0, nprocs - 1
    do i = 1, m
      x(i, p) = rank * 100000 + p * 1000 + i
    end do
    cnt(p+1) = m
    dsp(p+1) = p * m * 4
    st(p+1) = MPI_INTEGER
  end do
  call MPI_Alltoallw(MPI_IN_PLACE, cnt, dsp, st, x, cnt, dsp, st, MPI_COMM_WORLD, ierr)
  bad = 0
  do p = 0, nprocs - 1
    do i = 1, m
      if (x(i, p) /= p * 100000 + rank * 1000 + i) bad = bad + 1
    end do
  end do
  if (bad > 0) failures = failures + 1
  call MPI_Allreduce(MPI_IN_PLACE, failures, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(A,I0,A,I0)', 'W_F cases=2 ranks=', nprocs, ' failures=', failures
  flush(6)  ! the verdict out before MPI_Finalize, as the C programs do
  call MPI_Finalize(ierr)
  if (failures > 0) stop 1
end program a2a_w_f
