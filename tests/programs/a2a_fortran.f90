! SPDX-License-Identifier: GPL-2.0-or-later
! a2a_fortran.f90 - MPI_Alltoall and MPI_Alltoallv from Fortran (use mpi),
! as Quantum ESPRESSO's FFTs call them, MPI_IN_PLACE, and one MPI_Ialltoall
! and one MPI_Ialltoallv (9 and 11 arguments in Fortran). Checks every
! element against what its sender wrote; prints "FORTRAN ranks=N bad=B" on
! rank 0 and stops with 1 if anything is wrong.
program a2a_fortran
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, i, j, n, bad, total, req
  integer, allocatable :: sbuf(:), rbuf(:), sc(:), sd(:), rc(:), rd(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  n = 6000                      ! 24,000 bytes per pair
  allocate(sbuf(n*nprocs), rbuf(n*nprocs), sc(nprocs), sd(nprocs), rc(nprocs), rd(nprocs))
  bad = 0

  do j = 0, nprocs - 1
    do i = 1, n
      sbuf(j*n + i) = value(rank, j, i)
    end do
  end do
  rbuf = -1
  call MPI_Alltoall(sbuf, n, MPI_INTEGER, rbuf, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do j = 0, nprocs - 1
    do i = 1, n
      if (rbuf(j*n + i) /= value(j, rank, i)) bad = bad + 1
    end do
  end do

  ! Alltoallv: rank r sends (r + j + 1) * 500 elements to rank j.
  do j = 0, nprocs - 1
    sc(j+1) = (rank + j + 1) * 500
    rc(j+1) = (j + rank + 1) * 500
    sd(j+1) = j * n
    rd(j+1) = j * n
  end do
  rbuf = -1
  call MPI_Alltoallv(sbuf, sc, sd, MPI_INTEGER, rbuf, rc, rd, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do j = 0, nprocs - 1
    do i = 1, rc(j+1)
      if (rbuf(j*n + i) /= value(j, rank, i)) bad = bad + 1
    end do
  end do

  ! In place: the receive buffer holds what is sent.
  rbuf = sbuf
  call MPI_Alltoall(MPI_IN_PLACE, 0, MPI_INTEGER, rbuf, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do j = 0, nprocs - 1
    do i = 1, n
      if (rbuf(j*n + i) /= value(j, rank, i)) bad = bad + 1
    end do
  end do

  ! Non-blocking, each completed by MPI_Wait.
  rbuf = -1
  call MPI_Ialltoall(sbuf, n, MPI_INTEGER, rbuf, n, MPI_INTEGER, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  do j = 0, nprocs - 1
    do i = 1, n
      if (rbuf(j*n + i) /= value(j, rank, i)) bad = bad + 1
    end do
  end do
  rbuf = -1
  call MPI_Ialltoallv(sbuf, sc, sd, MPI_INTEGER, rbuf, rc, rd, MPI_INTEGER, MPI_COMM_WORLD, &
                      req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  do j = 0, nprocs - 1
    do i = 1, rc(j+1)
      if (rbuf(j*n + i) /= value(j, rank, i)) bad = bad + 1
    end do
  end do

  call MPI_Allreduce(bad, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(A,I0,A,I0)', 'FORTRAN ranks=', nprocs, ' bad=', total
  flush(6)  ! the verdict out before MPI_Finalize, as the C programs do
  call MPI_Finalize(ierr)
  if (total /= 0) stop 1

contains
  integer function value(src, dst, i)
    integer, intent(in) :: src, dst, i
    value = src * 1000000 + dst * 10000 + mod(i, 10000)
  end function value
end program a2a_fortran
